-- A success callback the provider does not stand behind (MoMo signs nothing and its reference is
-- ours; a Daraja notice naming a CheckoutRequestID we never stored) is kept `unverified` and
-- applied only once the provider's own status query says paid; one the query says was not paid
-- is `refuted`. A success the provider's status gave for a payment that a failure had decided
-- first is kept too, as `overruled` (it moves nothing). Care sees the success signals no payment
-- took (src/payments/unmatched.ts): these and mismatched ones beside the unmatched.
ALTER TABLE payment_notices DROP CONSTRAINT payment_notices_outcome_check;
ALTER TABLE payment_notices ADD CONSTRAINT payment_notices_outcome_check CHECK (
  outcome IN ('unmatched', 'applied', 'duplicate', 'mismatch', 'ignored', 'unverified', 'refuted', 'overruled')
);

-- The verification's look-up: a payment's notices waiting for its status query.
CREATE INDEX payment_notices_unverified ON payment_notices (payment_id, id) WHERE outcome = 'unverified';

-- The care list's other half: success signals a payment of ours did not take (see 0017 for the
-- notices that name no payment).
CREATE INDEX payment_notices_untaken ON payment_notices (received_at DESC, id DESC)
  WHERE payment_id IS NOT NULL AND outcome IN ('mismatch', 'overruled', 'unverified') AND kind = 'payment'
    AND notice ->> 'state' = 'successful' AND resolved_at IS NULL;
