-- The agent network (issue 32): dealers and their retailers, assistants at an outlet, commission
-- on every sale, float moved by a dealer, top-ups paid by the agent, bank deposits an operator
-- approves, and the day's summary. Every money movement is an entry of float_entries (one per
-- account it moves), applied once per reference or purchase key, never below zero.

-- A retailer names its dealer; an assistant names its outlet (the agent whose float it sells
-- from). Neither may name itself, and an agent is a retailer or an assistant, not both.
-- `commission`: the agent's own policy (AGENT_COMMISSION's grammar), NULL: the configured one.
-- `dealer_share_bp`: a dealer's share of its retailers' commission (basis points), NULL: the
-- configured AGENT_DEALER_SHARE.
ALTER TABLE agents ADD COLUMN dealer_msisdn text REFERENCES agents (msisdn);
ALTER TABLE agents ADD COLUMN outlet_msisdn text REFERENCES agents (msisdn);
ALTER TABLE agents ADD COLUMN commission text;
ALTER TABLE agents ADD COLUMN dealer_share_bp integer CHECK (dealer_share_bp BETWEEN 0 AND 10000);
ALTER TABLE agents ADD CONSTRAINT agents_dealer_not_self CHECK (dealer_msisdn <> msisdn);
ALTER TABLE agents ADD CONSTRAINT agents_outlet_not_self CHECK (outlet_msisdn <> msisdn);
ALTER TABLE agents ADD CONSTRAINT agents_retailer_or_assistant
  CHECK (dealer_msisdn IS NULL OR outlet_msisdn IS NULL);
CREATE INDEX agents_by_dealer ON agents (dealer_msisdn) WHERE dealer_msisdn IS NOT NULL;
CREATE INDEX agents_by_outlet ON agents (outlet_msisdn) WHERE outlet_msisdn IS NOT NULL;

-- A dealer may disable its retailer ('dealer'), an outlet's owner its assistant ('owner'); each
-- may enable only what it disabled itself.
ALTER TABLE agents DROP CONSTRAINT agents_disabled_reason_check;
ALTER TABLE agents ADD CONSTRAINT agents_disabled_reason_check
  CHECK (disabled_reason IN ('operator', 'lockouts', 'blocked', 'dealer', 'owner'));

-- The new kinds of entry. 0002's checks on the kind are replaced by named ones saying the same
-- for the old kinds:
--   commission   +a  a sale's commission (purchase key: once per purchase and account)
--   transfer_out −a  a dealer's float moved to its retailer (reference: once per request)
--   transfer_in  +a  the same move on the retailer's side (same reference)
--   topup        +a  the agent's own payment, once per provider reference
--   deposit      +a  a bank deposit an operator approved, once per bank reference
DO $$
DECLARE
  c record;
BEGIN
  FOR c IN SELECT conname FROM pg_constraint
            WHERE conrelid = 'float_entries'::regclass AND contype = 'c'
              AND pg_get_constraintdef(oid) LIKE '%kind%'
  LOOP
    EXECUTE format('ALTER TABLE float_entries DROP CONSTRAINT %I', c.conname);
  END LOOP;
END;
$$;

ALTER TABLE float_entries ADD CONSTRAINT float_entries_kind CHECK (kind IN ('credit', 'adjustment',
  'reserve', 'settle', 'release', 'commission', 'transfer_in', 'transfer_out', 'topup', 'deposit'));
ALTER TABLE float_entries ADD CONSTRAINT float_entries_reference_kinds CHECK ((kind IN ('credit',
  'adjustment', 'transfer_in', 'transfer_out', 'topup', 'deposit')) = (reference IS NOT NULL));
ALTER TABLE float_entries ADD CONSTRAINT float_entries_purchase_kinds
  CHECK ((kind IN ('reserve', 'settle', 'release', 'commission')) = (purchase_key IS NOT NULL));
ALTER TABLE float_entries ADD CONSTRAINT float_entries_delta CHECK (CASE kind
  WHEN 'credit' THEN amount_minor > 0 AND delta_minor = amount_minor
  WHEN 'adjustment' THEN amount_minor <> 0 AND delta_minor = amount_minor
  WHEN 'reserve' THEN amount_minor > 0 AND delta_minor = -amount_minor
  WHEN 'release' THEN amount_minor > 0 AND delta_minor = amount_minor
  WHEN 'settle' THEN amount_minor > 0 AND delta_minor IN (0, -amount_minor)
  WHEN 'commission' THEN amount_minor > 0 AND delta_minor = amount_minor
  WHEN 'transfer_in' THEN amount_minor > 0 AND delta_minor = amount_minor
  WHEN 'transfer_out' THEN amount_minor > 0 AND delta_minor = -amount_minor
  WHEN 'topup' THEN amount_minor > 0 AND delta_minor = amount_minor
  WHEN 'deposit' THEN amount_minor > 0 AND delta_minor = amount_minor
END);

-- Locks two accounts in one order (by number), so a transfer and a commission that touch the same
-- dealer and retailer never wait for each other crosswise.
CREATE FUNCTION float_lock_pair(p_a text, p_b text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM float_lock_account(least(p_a, p_b));
  PERFORM float_lock_account(greatest(p_a, p_b));
END;
$$;

-- A sale succeeded: float_settle, then its commission in the same transaction — `p_commission` to
-- the seller's account and `p_dealer_commission` to its dealer's (NULL/0: none), each once per
-- purchase key. Nothing is earned when the settle did not spend the sale (not found, uncovered).
-- Called again (the sweep, a crash), the settle answers 'already' and a commission already
-- written is not written again. The answer is the settle's; `used` is the seller's commission
-- written by this call (0 when none).
CREATE FUNCTION float_settle_commission(
  p_msisdn text, p_key text, p_at timestamptz, p_late_note text,
  p_commission bigint, p_dealer text, p_dealer_commission bigint, p_note text
) RETURNS float_outcome LANGUAGE plpgsql AS $$
DECLARE
  result float_outcome;
  written bigint := 0;
BEGIN
  IF p_dealer IS NOT NULL AND coalesce(p_dealer_commission, 0) > 0 THEN
    PERFORM float_lock_pair(p_msisdn, p_dealer);
  END IF;
  result := float_settle(p_msisdn, p_key, p_at, p_late_note);
  IF result.outcome NOT IN ('written', 'already') OR (result.hold).state <> 'settled' THEN
    result.used := 0;
    RETURN result;
  END IF;
  IF coalesce(p_commission, 0) > 0 AND NOT EXISTS (SELECT 1 FROM float_entries
       WHERE msisdn = p_msisdn AND kind = 'commission' AND purchase_key = p_key) THEN
    PERFORM float_lock_account(p_msisdn);
    PERFORM float_append(p_msisdn, p_at, 'commission', p_commission, p_commission, 0, p_key, NULL, p_note);
    written := p_commission;
  END IF;
  IF p_dealer IS NOT NULL AND coalesce(p_dealer_commission, 0) > 0 AND NOT EXISTS (SELECT 1
       FROM float_entries WHERE msisdn = p_dealer AND kind = 'commission' AND purchase_key = p_key) THEN
    PERFORM float_lock_account(p_dealer);
    PERFORM float_append(p_dealer, p_at, 'commission', p_dealer_commission, p_dealer_commission, 0, p_key,
      NULL, 'share of retailer ' || p_msisdn);
  END IF;
  result.used := written;
  RETURN result;
END;
$$;

-- A dealer moves `p_amount` of its float to one of its retailers: both entries (transfer_out on
-- the dealer, transfer_in on the retailer, the same reference) in this one transaction. Refused:
-- 'not_retailer' (refused: the retailer is not the dealer's float-funded retailer), 'insufficient'
-- (the dealer's float does not cover it). The same reference again: 'duplicate' (same retailer
-- and amount, nothing written) or 'conflict'. The answer's entry is the dealer's;
-- `available_minor` the dealer's balance after, `used` the retailer's.
CREATE FUNCTION float_transfer(
  p_dealer text, p_retailer text, p_amount bigint, p_reference text, p_at timestamptz
) RETURNS float_outcome LANGUAGE plpgsql AS $$
DECLARE
  found_entry float_entries;
  result float_outcome;
BEGIN
  PERFORM 1 FROM agents
    WHERE msisdn = p_retailer AND dealer_msisdn = p_dealer AND funding_kind = 'float'
    FOR SHARE;
  IF NOT FOUND OR p_dealer = p_retailer THEN
    result.outcome := 'not_retailer';
    RETURN result;
  END IF;
  PERFORM float_lock_pair(p_dealer, p_retailer);
  SELECT * INTO found_entry FROM float_entries WHERE msisdn = p_dealer AND reference = p_reference;
  IF FOUND THEN
    result.entry := found_entry;
    IF (found_entry.kind, found_entry.amount_minor, found_entry.note) = ('transfer_out', p_amount, 'to ' || p_retailer) THEN
      result.outcome := 'duplicate';
    ELSE
      result.outcome := 'conflict';
      result.refused := 'reference';
    END IF;
    SELECT balance_minor INTO result.available_minor FROM float_accounts WHERE msisdn = p_dealer;
    SELECT balance_minor INTO result.used FROM float_accounts WHERE msisdn = p_retailer;
    RETURN result;
  END IF;
  IF (SELECT balance_minor FROM float_accounts WHERE msisdn = p_dealer) < p_amount THEN
    result.outcome := 'insufficient';
    SELECT balance_minor INTO result.available_minor FROM float_accounts WHERE msisdn = p_dealer;
    RETURN result;
  END IF;
  result.entry := float_append(p_dealer, p_at, 'transfer_out', p_amount, -p_amount, 0, NULL, p_reference,
    'to ' || p_retailer);
  PERFORM float_append(p_retailer, p_at, 'transfer_in', p_amount, p_amount, 0, NULL, p_reference,
    'from ' || p_dealer);
  result.outcome := 'written';
  result.available_minor := (result.entry).balance_minor;
  SELECT balance_minor INTO result.used FROM float_accounts WHERE msisdn = p_retailer;
  RETURN result;
END;
$$;

-- Bank deposits an agent reports (`DEPOSIT <amount> <bank reference> <PIN>`): they wait for an
-- operator; approved, the float gets a 'deposit' entry (reference 'deposit:<bank reference>') in
-- the same transaction as the approval. A bank reference is reported once, by one agent.
CREATE TABLE agent_deposits (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- No foreign key to agents, as float_accounts: the money history is kept whatever becomes of the agent.
  msisdn text NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  bank_reference text NOT NULL UNIQUE,
  state text NOT NULL CHECK (state IN ('pending', 'approved', 'rejected')),
  requested_at timestamptz NOT NULL,
  decided_at timestamptz,
  decided_by text,
  note text,
  CHECK ((state = 'pending') = (decided_at IS NULL))
);
CREATE INDEX agent_deposits_pending ON agent_deposits (requested_at) WHERE state = 'pending';

-- An operator approves a pending deposit: the credit and the approval commit together, so a
-- deposit is credited once however often it is approved ('already': decided before, nothing
-- written; 'not_found'). The answer's entry is the deposit's entry.
CREATE FUNCTION float_deposit_approve(p_id bigint, p_by text, p_at timestamptz)
RETURNS float_outcome LANGUAGE plpgsql AS $$
DECLARE
  deposit agent_deposits;
  result float_outcome;
BEGIN
  SELECT * INTO deposit FROM agent_deposits WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN
    result.outcome := 'not_found';
    RETURN result;
  END IF;
  IF deposit.state <> 'pending' THEN
    result.outcome := 'already';
    result.refused := deposit.state;
    RETURN result;
  END IF;
  result := float_credit(deposit.msisdn, 'deposit', deposit.amount_minor,
    'deposit:' || deposit.bank_reference, NULL, 'bank deposit approved by ' || p_by, p_at);
  IF result.outcome NOT IN ('written', 'duplicate') THEN
    RETURN result;
  END IF;
  UPDATE agent_deposits SET state = 'approved', decided_at = p_at, decided_by = p_by WHERE id = p_id;
  RETURN result;
END;
$$;

-- The day's summary SMS (AGENT_SUMMARY_TIME): one per agent and local day, noted once queued.
CREATE TABLE agent_summaries (
  msisdn text NOT NULL,
  day date NOT NULL,
  sent_at timestamptz NOT NULL,
  PRIMARY KEY (msisdn, day)
);
