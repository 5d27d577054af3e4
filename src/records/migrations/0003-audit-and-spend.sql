-- Customer care's audit trail: who did what to which purchase, when and why. Append-only: an
-- entry is never changed nor removed (the trigger below refuses both). No foreign key to
-- purchases: an entry outlives a purchase purged past its retention.
CREATE TABLE care_audit (
  -- The order entries were written in (ties of `at` are common: one reveal per purchase shown).
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id uuid NOT NULL UNIQUE,
  at timestamptz NOT NULL,
  actor text NOT NULL,
  -- CareAction (resolve, reconcile, reveal, …): the list grows with care's tools, unchecked here.
  action text NOT NULL,
  purchase_id text,
  note text,
  detail text
);

CREATE INDEX care_audit_newest ON care_audit (at DESC, seq DESC);
CREATE INDEX care_audit_by_purchase ON care_audit (purchase_id, at DESC, seq DESC)
  WHERE purchase_id IS NOT NULL;

CREATE FUNCTION care_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'care_audit is append-only';
END;
$$;
CREATE TRIGGER care_audit_no_change BEFORE UPDATE OR DELETE ON care_audit
  FOR EACH ROW EXECUTE FUNCTION care_audit_append_only();

-- The per-number daily spend: one row per number and local day holding the running totals (and
-- the row lock a reservation takes), and beside it the entries the totals are the sum of — one
-- reservation per purchase key, and at most one release of it. A key is counted at most once,
-- released or not (the primary keys refuse a second); the totals never go below zero. A day
-- goes whole (its entries cascade) when a retention purge removes it.
CREATE TABLE spend_days (
  msisdn text NOT NULL,
  day date NOT NULL,
  value_minor bigint NOT NULL DEFAULT 0 CHECK (value_minor >= 0),
  count integer NOT NULL DEFAULT 0 CHECK (count >= 0),
  PRIMARY KEY (msisdn, day)
);

CREATE TABLE spend_reservations (
  msisdn text NOT NULL,
  day date NOT NULL,
  purchase_key text NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (msisdn, day, purchase_key),
  FOREIGN KEY (msisdn, day) REFERENCES spend_days (msisdn, day) ON DELETE CASCADE
);

CREATE TABLE spend_releases (
  msisdn text NOT NULL,
  day date NOT NULL,
  purchase_key text NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (msisdn, day, purchase_key),
  FOREIGN KEY (msisdn, day, purchase_key) REFERENCES spend_reservations (msisdn, day, purchase_key)
    ON DELETE CASCADE
);

-- Count one sale against a number's day, once per purchase key (the SQL twin of
-- src/spend/commands/reserveDaily-1.lua): the day's row is locked first, so concurrent
-- reservations on one number queue and each sees the totals the previous one committed.
-- Returns one row: outcome 1 counted (or counted before under this key, released or not),
-- -1 over the value limit, -2 over the count limit; with the day's totals after it.
CREATE FUNCTION spend_reserve(
  p_msisdn text, p_day date, p_key text, p_amount bigint, p_max_value bigint, p_max_count integer
) RETURNS TABLE (outcome integer, day_value bigint, day_count integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_value bigint;
  v_count integer;
BEGIN
  INSERT INTO spend_days (msisdn, day) VALUES (p_msisdn, p_day) ON CONFLICT DO NOTHING;
  SELECT d.value_minor, d.count INTO v_value, v_count
    FROM spend_days d WHERE d.msisdn = p_msisdn AND d.day = p_day FOR UPDATE;
  -- A new statement under the lock: it sees a reservation committed by whoever held it before.
  IF EXISTS (SELECT 1 FROM spend_reservations r
              WHERE r.msisdn = p_msisdn AND r.day = p_day AND r.purchase_key = p_key) THEN
    RETURN QUERY SELECT 1, v_value, v_count;
  ELSIF v_value + p_amount > p_max_value THEN
    RETURN QUERY SELECT -1, v_value, v_count;
  ELSIF v_count + 1 > p_max_count THEN
    RETURN QUERY SELECT -2, v_value, v_count;
  ELSE
    UPDATE spend_days d SET value_minor = d.value_minor + p_amount, count = d.count + 1
     WHERE d.msisdn = p_msisdn AND d.day = p_day;
    INSERT INTO spend_reservations (msisdn, day, purchase_key, amount_minor)
      VALUES (p_msisdn, p_day, p_key, p_amount);
    RETURN QUERY SELECT 1, v_value + p_amount, v_count + 1;
  END IF;
END;
$$;

-- The operator's blocklist: numbers and identifiers that get no quote and no purchase.
CREATE TABLE blocklist (
  kind text NOT NULL CHECK (kind IN ('msisdn', 'identifier')),
  value text NOT NULL,
  blocked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, value)
);
