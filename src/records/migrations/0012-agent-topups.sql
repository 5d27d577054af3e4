-- An agent's own float top-up (issue 32, `TOPUP <amount> <PIN>`): a payment request to the
-- agent's own number through the payment lifecycle, with no purchase behind it. A payment now
-- pays for exactly one thing — a purchase (purchase_id) or a top-up (topup_id) — and each has at
-- most one payment (both UNIQUE). A top-up is asked once per request (request_key UNIQUE: a
-- re-delivered TOPUP finds its request and its payment), and its float is credited once by
-- float_credit's reference (kind 'topup', the provider's reference) when the payment is known
-- successful; `state` says whether the agent has been told (the sweep tells a 'requested' one).
CREATE TABLE agent_topups (
  id uuid PRIMARY KEY,
  -- Who asked, by which message (the inbound SMS's key): one payment request per request.
  request_key text NOT NULL UNIQUE,
  -- No foreign key to agents, as float_accounts: the money history is kept whatever becomes of the agent.
  msisdn text NOT NULL,
  currency char(3) NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  state text NOT NULL CHECK (state IN ('requested', 'credited', 'failed')),
  requested_at timestamptz NOT NULL,
  decided_at timestamptz,
  CHECK ((state = 'requested') = (decided_at IS NULL))
);
CREATE INDEX agent_topups_requested ON agent_topups (requested_at) WHERE state = 'requested';

ALTER TABLE payments ALTER COLUMN purchase_id DROP NOT NULL;
ALTER TABLE payments ADD COLUMN topup_id uuid UNIQUE REFERENCES agent_topups (id) ON DELETE CASCADE;
ALTER TABLE payments ADD CONSTRAINT payments_pay_for_one CHECK (num_nonnulls(purchase_id, topup_id) = 1);
