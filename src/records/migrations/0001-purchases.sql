-- Purchases: the current state of each (one row, `record` the whole PurchaseRecord as JSON) and
-- the append-only history of every transition beside it. The columns beside `record` are what
-- lists and reports select on; everything fixed at creation is copied once, the state and
-- version on every transition.
CREATE TABLE purchases (
  id text PRIMARY KEY,
  idempotency_key text NOT NULL UNIQUE,
  external_reference text NOT NULL,
  state text NOT NULL,
  version integer NOT NULL CHECK (version >= 1),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  product_type text NOT NULL,
  provider_code text NOT NULL,
  channel text NOT NULL,
  subscriber_identifier text NOT NULL,
  beneficiary_msisdn text NOT NULL,
  requester_msisdn text NOT NULL,
  agent_msisdn text,
  currency char(3) NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  record jsonb NOT NULL,
  provider_reference text GENERATED ALWAYS AS (record -> 'result' ->> 'reference') STORED,
  notified boolean GENERATED ALWAYS AS (record ->> 'notifiedAt' IS NOT NULL) STORED
);

CREATE INDEX purchases_by_state ON purchases (state, created_at DESC, id DESC);
CREATE INDEX purchases_by_requester ON purchases (requester_msisdn, created_at DESC);
CREATE INDEX purchases_by_beneficiary ON purchases (beneficiary_msisdn, created_at DESC);
CREATE INDEX purchases_by_identifier ON purchases (subscriber_identifier, created_at DESC);
CREATE INDEX purchases_by_external_reference ON purchases (external_reference);
CREATE INDEX purchases_by_provider_reference ON purchases (provider_reference) WHERE provider_reference IS NOT NULL;
CREATE INDEX purchases_by_day ON purchases (created_at);
CREATE INDEX purchases_unnotified ON purchases (created_at, id) WHERE NOT notified;

CREATE TABLE purchase_transitions (
  purchase_id text NOT NULL REFERENCES purchases (id) ON DELETE CASCADE,
  version integer NOT NULL,
  from_state text,
  to_state text NOT NULL,
  at timestamptz NOT NULL,
  -- The fields the transition wrote (NULL for the creation).
  patch jsonb,
  PRIMARY KEY (purchase_id, version)
);

-- History is appended, never rewritten: only a purge of a whole purchase past its retention
-- (ON DELETE CASCADE) removes rows.
CREATE FUNCTION purchase_transitions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'purchase_transitions is append-only';
END;
$$;
CREATE TRIGGER purchase_transitions_no_update BEFORE UPDATE ON purchase_transitions
  FOR EACH ROW EXECUTE FUNCTION purchase_transitions_append_only();
