-- Field agents (src/agents/store/sql.ts): one row each, with the PIN's salted hash (never the
-- PIN), the lockout counters, the funding, the per-agent limit overrides (NULL: the configured
-- default) and the status.
CREATE TABLE agents (
  msisdn text PRIMARY KEY,
  name text NOT NULL,
  language text NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'locked', 'disabled')),
  disabled_reason text CHECK (disabled_reason IN ('operator', 'lockouts', 'blocked')),
  failed_attempts integer NOT NULL CHECK (failed_attempts >= 0),
  locked_until timestamptz,
  lockout_day date,
  lockouts_today integer NOT NULL CHECK (lockouts_today >= 0),
  must_change_pin boolean NOT NULL,
  funding_kind text NOT NULL CHECK (funding_kind IN ('account', 'float')),
  debited_account_id bigint,
  max_sale_minor bigint CHECK (max_sale_minor >= 0),
  max_day_value_minor bigint CHECK (max_day_value_minor >= 0),
  max_day_count integer CHECK (max_day_count >= 0),
  pin_hash text NOT NULL,
  pin_salt text NOT NULL,
  pin_params jsonb NOT NULL,
  pin_version integer NOT NULL CHECK (pin_version >= 1),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((status = 'disabled') = (disabled_reason IS NOT NULL)),
  CHECK (status <> 'locked' OR locked_until IS NOT NULL),
  CHECK ((funding_kind = 'account') = (debited_account_id IS NOT NULL))
);

CREATE INDEX agents_by_created ON agents (created_at, msisdn);

-- Float ledgers (src/agents/ledger/sql.ts). An account per agent: what sales may still reserve
-- (balance), what open sales hold, and how many entries it has. The database itself refuses a
-- negative balance. No foreign key to agents: the ledger is kept whatever becomes of the agent.
CREATE TABLE float_accounts (
  msisdn text PRIMARY KEY,
  balance_minor bigint NOT NULL DEFAULT 0 CHECK (balance_minor >= 0),
  held_minor bigint NOT NULL DEFAULT 0 CHECK (held_minor >= 0),
  entries integer NOT NULL DEFAULT 0 CHECK (entries >= 0)
);

-- Every change of a balance is an entry, numbered 1, 2, 3, … per account; the balance is the
-- sum of its entries' deltas (ledgerDiscrepancies checks it). A top-up or correction is applied
-- once per reference (whatever its kind, as the reference names one bank transfer or one
-- correction), and a reservation's reserve, settle and release once per purchase key: UNIQUE,
-- so a second application is refused by the database, not only by the code.
CREATE TABLE float_entries (
  msisdn text NOT NULL REFERENCES float_accounts (msisdn),
  seq integer NOT NULL CHECK (seq >= 1),
  at timestamptz NOT NULL,
  kind text NOT NULL CHECK (kind IN ('credit', 'adjustment', 'reserve', 'settle', 'release')),
  amount_minor bigint NOT NULL,
  delta_minor bigint NOT NULL,
  balance_minor bigint NOT NULL CHECK (balance_minor >= 0),
  held_minor bigint NOT NULL CHECK (held_minor >= 0),
  purchase_key text,
  reference text,
  note text,
  PRIMARY KEY (msisdn, seq),
  UNIQUE (msisdn, reference),
  UNIQUE (msisdn, kind, purchase_key),
  CHECK ((kind IN ('credit', 'adjustment')) = (reference IS NOT NULL)),
  CHECK ((kind IN ('reserve', 'settle', 'release')) = (purchase_key IS NOT NULL)),
  -- What each kind does to the available balance (settle: 0, or −amount after a release).
  CHECK (CASE kind
    WHEN 'credit' THEN amount_minor > 0 AND delta_minor = amount_minor
    WHEN 'adjustment' THEN amount_minor <> 0 AND delta_minor = amount_minor
    WHEN 'reserve' THEN amount_minor > 0 AND delta_minor = -amount_minor
    WHEN 'release' THEN amount_minor > 0 AND delta_minor = amount_minor
    WHEN 'settle' THEN amount_minor > 0 AND delta_minor IN (0, -amount_minor)
  END)
);

CREATE INDEX float_entries_by_day ON float_entries (at);

-- Entries are money history: never changed, never deleted.
CREATE FUNCTION float_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'float_entries is append-only';
END;
$$;
CREATE TRIGGER float_entries_no_change BEFORE UPDATE OR DELETE ON float_entries
  FOR EACH ROW EXECUTE FUNCTION float_entries_append_only();

-- A client's retry key (Idempotency-Key) names the entry it first applied.
CREATE TABLE float_idempotency_keys (
  msisdn text NOT NULL,
  idempotency_key text NOT NULL,
  seq integer NOT NULL,
  PRIMARY KEY (msisdn, idempotency_key),
  FOREIGN KEY (msisdn, seq) REFERENCES float_entries (msisdn, seq)
);

-- The hold each sale put on an agent: on the float (funding 'float') or on the day's limits only
-- ('account'). The day's usage is the sum of the day's holds not released: nothing to drift.
CREATE TABLE float_holds (
  msisdn text NOT NULL,
  purchase_key text NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  state text NOT NULL CHECK (state IN ('held', 'settled', 'released')),
  day date NOT NULL,
  funding text NOT NULL CHECK (funding IN ('float', 'account')),
  reserved_at timestamptz NOT NULL,
  closed_at timestamptz,
  PRIMARY KEY (msisdn, purchase_key),
  CHECK ((state = 'held') = (closed_at IS NULL))
);

CREATE INDEX float_holds_by_day ON float_holds (msisdn, day) WHERE state <> 'released';

-- What each float function answers; the TypeScript side reads the fields it needs.
CREATE TYPE float_outcome AS (
  -- written | duplicate | conflict | insufficient | over_limit | already | uncovered | not_found
  outcome text,
  -- The entry written (or, for a duplicate credit, the one applied before).
  entry float_entries,
  -- The reservation after the call (or as found).
  hold float_holds,
  available_minor bigint,
  -- conflict: 'reference' | 'idempotencyKey'; over_limit: 'max_sale' | 'day_value' | 'day_count'.
  refused text,
  limit_value bigint,
  used bigint
);

-- Each float write is one call of one of the functions below: one statement, one transaction.
-- Each first takes the account's row lock (creating the account when new), so one agent's
-- writes run one after another; every statement after it (a VOLATILE function's statements each
-- take a fresh snapshot) sees what the previous holder committed. They mirror the Redis
-- scripts in src/agents/ledger/commands/.
CREATE FUNCTION float_lock_account(p_msisdn text) RETURNS float_accounts LANGUAGE plpgsql AS $$
DECLARE
  account float_accounts;
BEGIN
  INSERT INTO float_accounts (msisdn) VALUES (p_msisdn) ON CONFLICT (msisdn) DO NOTHING;
  SELECT * INTO account FROM float_accounts WHERE msisdn = p_msisdn FOR UPDATE;
  RETURN account;
END;
$$;

-- Moves the account by `p_delta` (available) and `p_held` (held) and writes the entry saying so.
CREATE FUNCTION float_append(
  p_msisdn text, p_at timestamptz, p_kind text, p_amount bigint, p_delta bigint, p_held bigint,
  p_purchase_key text, p_reference text, p_note text
) RETURNS float_entries LANGUAGE plpgsql AS $$
DECLARE
  account float_accounts;
  entry float_entries;
BEGIN
  UPDATE float_accounts
     SET balance_minor = balance_minor + p_delta, held_minor = held_minor + p_held, entries = entries + 1
   WHERE msisdn = p_msisdn
  RETURNING * INTO STRICT account;
  INSERT INTO float_entries (msisdn, seq, at, kind, amount_minor, delta_minor, balance_minor, held_minor,
    purchase_key, reference, note)
  VALUES (p_msisdn, account.entries, p_at, p_kind, p_amount, p_delta, account.balance_minor,
    account.held_minor, p_purchase_key, p_reference, p_note)
  RETURNING * INTO entry;
  RETURN entry;
END;
$$;

-- A top-up ('credit') or a correction ('adjustment', signed), once per reference and per key.
CREATE FUNCTION float_credit(
  p_msisdn text, p_kind text, p_amount bigint, p_reference text, p_key text, p_note text, p_at timestamptz
) RETURNS float_outcome LANGUAGE plpgsql AS $$
DECLARE
  account float_accounts := float_lock_account(p_msisdn);
  found_entry float_entries;
  result float_outcome;
BEGIN
  IF p_key IS NOT NULL THEN
    SELECT e.* INTO found_entry FROM float_idempotency_keys k
      JOIN float_entries e ON e.msisdn = k.msisdn AND e.seq = k.seq
     WHERE k.msisdn = p_msisdn AND k.idempotency_key = p_key;
    IF FOUND THEN
      IF (found_entry.kind, found_entry.amount_minor, found_entry.reference) = (p_kind, p_amount, p_reference) THEN
        result.outcome := 'duplicate';
        result.entry := found_entry;
      ELSE
        result.outcome := 'conflict';
        result.refused := 'idempotencyKey';
      END IF;
      RETURN result;
    END IF;
  END IF;
  SELECT * INTO found_entry FROM float_entries WHERE msisdn = p_msisdn AND reference = p_reference;
  IF FOUND THEN
    IF (found_entry.kind, found_entry.amount_minor) <> (p_kind, p_amount) THEN
      result.outcome := 'conflict';
      result.refused := 'reference';
      RETURN result;
    END IF;
    -- A new key for a reference applied before names that entry from now on.
    IF p_key IS NOT NULL THEN
      INSERT INTO float_idempotency_keys (msisdn, idempotency_key, seq) VALUES (p_msisdn, p_key, found_entry.seq);
    END IF;
    result.outcome := 'duplicate';
    result.entry := found_entry;
    RETURN result;
  END IF;
  IF account.balance_minor + p_amount < 0 THEN
    result.outcome := 'insufficient';
    result.available_minor := account.balance_minor;
    RETURN result;
  END IF;
  result.entry := float_append(p_msisdn, p_at, p_kind, p_amount, p_amount, 0, NULL, p_reference, p_note);
  IF p_key IS NOT NULL THEN
    INSERT INTO float_idempotency_keys (msisdn, idempotency_key, seq) VALUES (p_msisdn, p_key, (result.entry).seq);
  END IF;
  result.outcome := 'written';
  RETURN result;
END;
$$;

-- Holds an amount for a sale: the limits checked against the day's holds and (funding 'float')
-- the balance debited, once per purchase key.
CREATE FUNCTION float_reserve(
  p_msisdn text, p_key text, p_amount bigint, p_funding text, p_max_sale bigint, p_max_day_value bigint,
  p_max_day_count bigint, p_day date, p_at timestamptz
) RETURNS float_outcome LANGUAGE plpgsql AS $$
DECLARE
  account float_accounts := float_lock_account(p_msisdn);
  hold float_holds;
  day_value bigint;
  day_count bigint;
  result float_outcome;
BEGIN
  SELECT * INTO hold FROM float_holds WHERE msisdn = p_msisdn AND purchase_key = p_key;
  IF FOUND THEN
    result.outcome := CASE WHEN hold.amount_minor = p_amount THEN 'duplicate' ELSE 'conflict' END;
    result.hold := hold;
    RETURN result;
  END IF;
  result.outcome := 'over_limit';
  IF p_amount > p_max_sale THEN
    SELECT 'max_sale', p_max_sale, 0 INTO result.refused, result.limit_value, result.used;
    RETURN result;
  END IF;
  SELECT coalesce(sum(amount_minor), 0), count(*) INTO day_value, day_count
    FROM float_holds WHERE msisdn = p_msisdn AND day = p_day AND state <> 'released';
  IF day_value + p_amount > p_max_day_value THEN
    SELECT 'day_value', p_max_day_value, day_value INTO result.refused, result.limit_value, result.used;
    RETURN result;
  END IF;
  IF day_count + 1 > p_max_day_count THEN
    SELECT 'day_count', p_max_day_count, day_count INTO result.refused, result.limit_value, result.used;
    RETURN result;
  END IF;
  IF p_funding = 'float' THEN
    IF account.balance_minor < p_amount THEN
      result.outcome := 'insufficient';
      result.available_minor := account.balance_minor;
      RETURN result;
    END IF;
    result.entry := float_append(p_msisdn, p_at, 'reserve', p_amount, -p_amount, p_amount, p_key, NULL, NULL);
  END IF;
  INSERT INTO float_holds (msisdn, purchase_key, amount_minor, state, day, funding, reserved_at)
  VALUES (p_msisdn, p_key, p_amount, 'held', p_day, p_funding, p_at)
  RETURNING * INTO hold;
  result.hold := hold;
  result.outcome := 'written';
  RETURN result;
END;
$$;

-- A sale succeeded: its held amount is spent. After a release (a success found late) the float
-- pays again if it covers the amount ('uncovered' otherwise, nothing written).
CREATE FUNCTION float_settle(p_msisdn text, p_key text, p_at timestamptz, p_late_note text)
RETURNS float_outcome LANGUAGE plpgsql AS $$
DECLARE
  account float_accounts := float_lock_account(p_msisdn);
  hold float_holds;
  result float_outcome;
BEGIN
  SELECT * INTO hold FROM float_holds WHERE msisdn = p_msisdn AND purchase_key = p_key;
  IF NOT FOUND THEN
    result.outcome := 'not_found';
    RETURN result;
  END IF;
  result.hold := hold;
  IF hold.state = 'settled' THEN
    result.outcome := 'already';
    RETURN result;
  END IF;
  IF hold.funding = 'float' THEN
    IF hold.state = 'released' THEN
      IF account.balance_minor < hold.amount_minor THEN
        result.outcome := 'uncovered';
        result.available_minor := account.balance_minor;
        RETURN result;
      END IF;
      result.entry := float_append(p_msisdn, p_at, 'settle', hold.amount_minor, -hold.amount_minor, 0,
        p_key, NULL, p_late_note);
    ELSE
      result.entry := float_append(p_msisdn, p_at, 'settle', hold.amount_minor, 0, -hold.amount_minor,
        p_key, NULL, NULL);
    END IF;
  END IF;
  UPDATE float_holds SET state = 'settled', closed_at = p_at
   WHERE msisdn = p_msisdn AND purchase_key = p_key
  RETURNING * INTO hold;
  result.hold := hold;
  result.outcome := 'written';
  RETURN result;
END;
$$;

-- A sale definitively failed: its held amount is available again and leaves the day's usage.
CREATE FUNCTION float_release(p_msisdn text, p_key text, p_at timestamptz)
RETURNS float_outcome LANGUAGE plpgsql AS $$
DECLARE
  account float_accounts := float_lock_account(p_msisdn);
  hold float_holds;
  result float_outcome;
BEGIN
  SELECT * INTO hold FROM float_holds WHERE msisdn = p_msisdn AND purchase_key = p_key;
  IF NOT FOUND THEN
    result.outcome := 'not_found';
    RETURN result;
  END IF;
  result.hold := hold;
  IF hold.state <> 'held' THEN
    result.outcome := 'already';
    RETURN result;
  END IF;
  IF hold.funding = 'float' THEN
    result.entry := float_append(p_msisdn, p_at, 'release', hold.amount_minor, hold.amount_minor,
      -hold.amount_minor, p_key, NULL, NULL);
  END IF;
  UPDATE float_holds SET state = 'released', closed_at = p_at
   WHERE msisdn = p_msisdn AND purchase_key = p_key
  RETURNING * INTO hold;
  result.hold := hold;
  result.outcome := 'written';
  RETURN result;
END;
$$;
