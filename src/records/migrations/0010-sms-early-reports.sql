-- Delivery reports that came before their message (src/channels/sms/outbound/store/sql.ts): a
-- provider may report on an SMS before the gateway has written its answer to the send (the
-- provider's message id), so the report names an id no message carries yet. It is kept here, one
-- row per provider message id, and applied by the write that links the id to its message (then
-- deleted). Bounded: rows older than an hour, and the oldest past 10 000, are dropped when one is
-- added (an id never linked: a copy whose answer was lost, or another system's SMS).
CREATE TABLE sms_early_reports (
  provider_message_id text PRIMARY KEY,
  state text NOT NULL CHECK (state IN ('delivered', 'pending', 'failed')),
  -- The report as kept on a message (DeliveryNote), JSON text as sms_messages.delivery.
  delivery text NOT NULL,
  received_at timestamptz NOT NULL
);

CREATE INDEX sms_early_reports_by_time ON sms_early_reports (received_at, provider_message_id);
