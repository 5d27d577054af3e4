-- What a repeat buyer expects (issue 31): saved meters, one notice per late purchase, the
-- operator's notice on the menu, and complaint cases in the care queue.

-- Every identifier a number bought for, per product, with the name the provider returned:
-- remembered when a purchase succeeds (src/subscribers/saved-meters.ts keeps the five newest per
-- number and product), removed by the subscriber or with the number's other data on request.
CREATE TABLE saved_meters (
  msisdn text NOT NULL,
  product_type text NOT NULL,
  identifier text NOT NULL,
  name text,
  last_bought_at timestamptz NOT NULL,
  PRIMARY KEY (msisdn, product_type, identifier)
);

CREATE INDEX saved_meters_newest ON saved_meters (msisdn, product_type, last_bought_at DESC);

-- "Taking longer than usual" told once per purchase: the row is the claim (its primary key
-- refuses a second, so two sweeps racing send one SMS); `queued_at` is set once its SMS is queued,
-- so a claim whose sender died is queued again (under the same message id: still one SMS).
CREATE TABLE delay_notices (
  purchase_id text PRIMARY KEY REFERENCES purchases (id) ON DELETE CASCADE,
  claimed_at timestamptz NOT NULL DEFAULT now(),
  queued_at timestamptz
);

-- The operator's notice, the first line of the menu while it lasts: one row per language
-- (`*`: every language without a text of its own).
CREATE TABLE operator_notices (
  language text PRIMARY KEY,
  text text NOT NULL CHECK (length(text) BETWEEN 1 AND 160),
  until timestamptz NOT NULL,
  set_by text NOT NULL,
  set_at timestamptz NOT NULL DEFAULT now()
);

-- A subscriber's complaint about a purchase, in the care queue beside needs_attention purchases.
-- `id` is the case number the subscriber is sent. No foreign key to purchases: a case outlives a
-- purchase purged past its retention (like the audit trail).
CREATE TABLE care_cases (
  id bigint GENERATED ALWAYS AS IDENTITY (START WITH 1001) PRIMARY KEY,
  msisdn text NOT NULL,
  purchase_id text,
  reason text NOT NULL CHECK (reason IN ('token_not_received', 'meter_rejects', 'wrong_meter', 'other')),
  state text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'closed')),
  notes text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  closed_by text,
  closed_at timestamptz,
  CHECK ((state = 'closed') = (closed_at IS NOT NULL AND closed_by IS NOT NULL))
);

CREATE INDEX care_cases_open ON care_cases (created_at, id) WHERE state = 'open';
CREATE INDEX care_cases_by_msisdn ON care_cases (msisdn, created_at DESC);
CREATE INDEX care_cases_by_purchase ON care_cases (purchase_id) WHERE purchase_id IS NOT NULL;
-- A report sent twice (a double press, an SMS re-delivered) finds the case it opened.
CREATE UNIQUE INDEX care_cases_one_open ON care_cases (msisdn, purchase_id, reason)
  WHERE state = 'open' AND purchase_id IS NOT NULL;
