-- Three-way reconciliation (src/reconciliation): the payment providers' statements as imported,
-- the purchase-service wallet's balances as read, and the mismatches found between them and our
-- records. Nothing here moves money.

-- One imported statement file or pull answer. `digest` (SHA-256 of the bytes) makes a re-import of
-- the same file change nothing.
CREATE TABLE statements (
  id bigserial PRIMARY KEY,
  provider text NOT NULL CHECK (provider IN ('mpesa', 'momo')),
  format text NOT NULL,
  digest text NOT NULL UNIQUE,
  imported_at timestamptz NOT NULL,
  imported_by text NOT NULL,
  -- The span of the lines it carried (completion times), and how many it carried.
  first_at timestamptz,
  last_at timestamptz,
  line_count integer NOT NULL,
  added_count integer NOT NULL
);

-- One line of a provider's statement: a provider's receipt is one line, whichever file brought it
-- (statements overlap: a day's export, a pull of the last 48 hours).
CREATE TABLE statement_lines (
  provider text NOT NULL,
  receipt text NOT NULL,
  statement_id bigint NOT NULL REFERENCES statements (id),
  completed_at timestamptz NOT NULL,
  -- payment: money in from a payer; refund: money given back to one; other: charges, settlements.
  kind text NOT NULL CHECK (kind IN ('payment', 'refund', 'other')),
  currency char(3) NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor >= 0),
  payer text,
  -- The account reference the payer or the API gave (M-Pesa's Acc., MoMo's External Transaction Id).
  account_reference text,
  -- The receipt a reversal gives back (M-Pesa's Linked Transaction ID).
  linked_receipt text,
  details text NOT NULL,
  PRIMARY KEY (provider, receipt)
);

CREATE INDEX statement_lines_by_time ON statement_lines (completed_at);
CREATE INDEX statement_lines_by_link ON statement_lines (provider, linked_receipt) WHERE linked_receipt IS NOT NULL;

-- The debit account's balance at the purchase service, read at the day's boundaries (and when an
-- operator asks): the wallet side of the match.
CREATE TABLE wallet_balances (
  id bigserial PRIMARY KEY,
  account_id integer NOT NULL,
  at timestamptz NOT NULL,
  currency char(3) NOT NULL,
  balance_minor bigint NOT NULL,
  source text NOT NULL
);

CREATE INDEX wallet_balances_by_time ON wallet_balances (account_id, at);

-- Money the operator put into (or took out of) the wallet outside the gateway, as it declared it.
CREATE TABLE wallet_topups (
  id bigserial PRIMARY KEY,
  account_id integer NOT NULL,
  at timestamptz NOT NULL,
  currency char(3) NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor <> 0),
  note text NOT NULL,
  declared_by text NOT NULL,
  declared_at timestamptz NOT NULL
);

CREATE INDEX wallet_topups_by_time ON wallet_topups (account_id, at);

-- A disagreement between the ledgers, one per fact (`fact_key`): a run of the day again updates
-- its facts while it is open and never adds a second one. Worked like a care case.
CREATE TABLE reconciliation_mismatches (
  id bigserial PRIMARY KEY,
  fact_key text NOT NULL UNIQUE,
  day date NOT NULL,
  reason text NOT NULL CHECK (reason IN ('paid_not_vended', 'vended_not_paid', 'paid_twice',
    'amount_differs', 'refund_not_in_statement', 'statement_payment_unknown', 'wallet_drift',
    'late_settlement')),
  state text NOT NULL CHECK (state IN ('open', 'closed')),
  purchase_id text,
  payment_id uuid,
  currency char(3) NOT NULL,
  amount_minor bigint NOT NULL,
  facts jsonb NOT NULL,
  suggested_action text NOT NULL,
  assignee text,
  notes text,
  found_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  closed_by text,
  closed_at timestamptz,
  decision text
);

CREATE INDEX reconciliation_mismatches_open ON reconciliation_mismatches (state, reason, day);
CREATE INDEX reconciliation_mismatches_by_day ON reconciliation_mismatches (day);
