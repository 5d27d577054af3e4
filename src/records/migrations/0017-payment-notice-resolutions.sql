-- Care closes a success notice that no payment of ours took (money nobody holds,
-- src/payments/unmatched.ts) once it has dealt with it: the money given back through the
-- provider's own tool, or found to belong to something else. Who, when and why are kept on the
-- notice; the notice as received and its outcome are left as they are (no money history is
-- rewritten). The three are set together or not at all; the note is not blank and is at most
-- care's MAX_NOTE (500) characters.
ALTER TABLE payment_notices
  ADD COLUMN resolved_at timestamptz,
  ADD COLUMN resolved_by text,
  ADD COLUMN resolution text;
ALTER TABLE payment_notices ADD CONSTRAINT payment_notices_resolution_whole CHECK (
  (resolved_at IS NULL AND resolved_by IS NULL AND resolution IS NULL)
  OR (resolved_at IS NOT NULL AND resolved_by IS NOT NULL AND resolved_by <> ''
      AND resolution IS NOT NULL AND resolution ~ '[^[:space:]]' AND char_length(resolution) <= 500)
);

-- The care list and its gauge (unmatchedSuccesses): unmatched success notices not yet resolved,
-- newest first. They used to be read through payment_notices_unmatched (0005), which holds every
-- notice without a payment. That index stays as it is: the lookups that match a notice by the
-- provider's key do not filter on resolution, so an index without resolved notices could not
-- serve them.
CREATE INDEX payment_notices_unresolved ON payment_notices (received_at DESC, id DESC)
  WHERE payment_id IS NULL AND outcome = 'unmatched' AND kind = 'payment'
    AND notice ->> 'state' = 'successful' AND resolved_at IS NULL;
