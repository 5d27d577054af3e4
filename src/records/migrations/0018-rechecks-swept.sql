-- The purchases' sweep resumes every verdict still re-checked (a late success may turn up until
-- `recheckUntil`): found by that time, not by a scan of every settled purchase.
CREATE INDEX purchases_rechecked_until ON purchases ((record ->> 'recheckUntil'))
  WHERE record ->> 'recheckUntil' IS NOT NULL;
