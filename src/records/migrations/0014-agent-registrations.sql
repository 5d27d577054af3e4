-- A retailer a dealer adds by USSD (issue 32 §3): one row per request (request_key UNIQUE: the
-- dialogue's key, so a hop sent again asks nothing twice). With DEALER_REGISTRATION=approve it
-- waits 'pending' for an operator; with direct it is approved by the dealer's request itself.
-- Approving registers the retailer through the registry (agents.msisdn is the primary key: one
-- agent however often it is approved); `decided_by` names who decided (the audit).
CREATE TABLE agent_registrations (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  request_key text NOT NULL UNIQUE,
  dealer_msisdn text NOT NULL,
  msisdn text NOT NULL,
  name text NOT NULL,
  language text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'approved', 'rejected')),
  requested_at timestamptz NOT NULL,
  decided_at timestamptz,
  decided_by text,
  note text,
  CHECK (dealer_msisdn <> msisdn),
  CHECK ((state = 'pending') = (decided_at IS NULL))
);
-- One request waiting per number: a second dealer (or the same one again) is told it waits.
CREATE UNIQUE INDEX agent_registrations_one_pending ON agent_registrations (msisdn) WHERE state = 'pending';
CREATE INDEX agent_registrations_by_state ON agent_registrations (state, requested_at);
