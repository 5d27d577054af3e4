-- A long SMS goes out in parts, and an SMSC (SMPP) gives each part an id of its own and sends a
-- delivery receipt per part, naming that part's id. Until now only the parts' ids joined by ','
-- were linked, so a receipt matched no message. Each part's id is now linked to its message
-- (src/channels/sms/outbound/store/sql.ts), with the copy it belongs to and what its reports say:
-- - copy_id: the provider id of the copy the part is of, as sms_messages.provider_message_id
--   carries it (the parts' ids joined by ','; a one-part copy's own id). Only reports on the copy
--   a message carries count;
-- - state: the part's latest report (a pending one never replaces a final one), null before one.
-- The message's delivery is read from its copy's parts: failed when one failed, delivered when
-- all are, pending until then.
ALTER TABLE sms_provider_messages
  ADD COLUMN copy_id text,
  ADD COLUMN state text CHECK (state IN ('delivered', 'pending', 'failed'));

-- Every link written before this was a whole copy's.
UPDATE sms_provider_messages SET copy_id = provider_message_id;

ALTER TABLE sms_provider_messages ALTER COLUMN copy_id SET NOT NULL;

-- The parts of one message's copy.
CREATE INDEX sms_provider_messages_by_copy ON sms_provider_messages (message_id, copy_id);
