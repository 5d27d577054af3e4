-- Fewer commits per purchase (issue 29, Performance): the Buy's spending rules become part of the
-- statement that writes the purchase, so the blocklist is checked under the same day's lock as the
-- limits instead of by reads of their own.
--
-- spend_reserve as in 0003, with the blocklist asked too: any of `p_blocked_msisdns` or the
-- identifier `p_identifier` (NULL: none) on the blocklist refuses with outcome -3 and counts
-- nothing. A key counted before is answered 1 first, as in 0003 (a retried Buy of a number blocked
-- since is not refused twice). 0003's six-argument function stays for the code that calls it.
CREATE OR REPLACE FUNCTION spend_reserve(
  p_msisdn text, p_day date, p_key text, p_amount bigint, p_max_value bigint, p_max_count integer,
  p_blocked_msisdns text[], p_identifier text
) RETURNS TABLE (outcome integer, day_value bigint, day_count integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_value bigint;
  v_count integer;
BEGIN
  INSERT INTO spend_days (msisdn, day) VALUES (p_msisdn, p_day) ON CONFLICT DO NOTHING;
  SELECT d.value_minor, d.count INTO v_value, v_count
    FROM spend_days d WHERE d.msisdn = p_msisdn AND d.day = p_day FOR UPDATE;
  IF EXISTS (SELECT 1 FROM spend_reservations r
              WHERE r.msisdn = p_msisdn AND r.day = p_day AND r.purchase_key = p_key) THEN
    RETURN QUERY SELECT 1, v_value, v_count;
  ELSIF EXISTS (SELECT 1 FROM blocklist b
                 WHERE (b.kind = 'msisdn' AND b.value = ANY (p_blocked_msisdns))
                    OR (b.kind = 'identifier' AND b.value = p_identifier)) THEN
    RETURN QUERY SELECT -3, v_value, v_count;
  ELSIF v_value + p_amount > p_max_value THEN
    RETURN QUERY SELECT -1, v_value, v_count;
  ELSIF v_count + 1 > p_max_count THEN
    RETURN QUERY SELECT -2, v_value, v_count;
  ELSE
    UPDATE spend_days d SET value_minor = d.value_minor + p_amount, count = d.count + 1
     WHERE d.msisdn = p_msisdn AND d.day = p_day;
    INSERT INTO spend_reservations (msisdn, day, purchase_key, amount_minor)
      VALUES (p_msisdn, p_day, p_key, p_amount);
    RETURN QUERY SELECT 1, v_value + p_amount, v_count + 1;
  END IF;
END;
$$;
