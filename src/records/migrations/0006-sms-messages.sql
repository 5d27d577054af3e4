-- Outgoing SMS are a module of their own (src/channels/sms/outbound/): a message has a kind, and
-- only the kinds about a purchase name one. Until now an SMS-MO reply carried a made-up purchase
-- id `mo:<inbound key>`; its message id (`mo%3A<key>:reply:<to>`) stays as it was.
ALTER TABLE sms_notifications RENAME TO sms_messages;
ALTER INDEX sms_notifications_by_purchase RENAME TO sms_messages_by_purchase;
ALTER INDEX sms_notifications_open RENAME TO sms_messages_open;
ALTER INDEX sms_notifications_undelivered RENAME TO sms_messages_undelivered;
ALTER TABLE sms_provider_messages RENAME COLUMN notification_id TO message_id;

ALTER TABLE sms_messages ADD COLUMN kind text, ALTER COLUMN purchase_id DROP NOT NULL;
-- The kind of the rows written before it: replies by their made-up purchase id; an agent's
-- receipt by its request key (`receipt:<key>`, a resend) or by going to the sale's agent.
UPDATE sms_messages AS m SET kind = CASE
    WHEN m.purchase_id LIKE 'mo:%' THEN 'sms-reply'
    WHEN starts_with(split_part(m.id, ':', 2), 'receipt%3A') THEN 'agent-receipt'
    WHEN EXISTS (SELECT 1 FROM purchases AS p WHERE p.id = m.purchase_id AND p.agent_msisdn = m.recipient)
      THEN 'agent-receipt'
    ELSE 'purchase-outcome'
  END;
UPDATE sms_messages SET purchase_id = NULL WHERE kind = 'sms-reply';

ALTER TABLE sms_messages
  ALTER COLUMN kind SET NOT NULL,
  ADD CONSTRAINT sms_messages_kind CHECK (kind IN ('purchase-outcome', 'agent-receipt', 'sms-reply')),
  -- A purchase's messages name it; a reply names none.
  ADD CONSTRAINT sms_messages_purchase CHECK ((purchase_id IS NULL) = (kind = 'sms-reply'));
