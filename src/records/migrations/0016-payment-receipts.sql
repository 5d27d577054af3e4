-- A Daraja reversal result whose own key was lost is matched by the receipt of the payment it
-- gives back (src/payments/store/sql.ts getByRefund): an index so that rare path reads one row,
-- not the whole payments table.
CREATE INDEX payments_by_receipt ON payments (provider, receipt) WHERE receipt IS NOT NULL;
