-- Outcome SMS (src/purchases/notify/sql-store.ts): one row per notification, its id
-- `<purchaseId>:<requestKey>:<recipient>` (the de-duplication point of `notify`: the primary key
-- refuses a second). The message carries the token. No foreign key to purchases: an SMS reply's
-- id names an inbound message, and a notification outlives a purchase purged past retention.
CREATE TABLE sms_notifications (
  id text PRIMARY KEY,
  purchase_id text NOT NULL,
  recipient text NOT NULL,
  sender text,
  message text NOT NULL,
  status text NOT NULL CHECK (status IN ('queued', 'sending', 'sent', 'rejected', 'undelivered')),
  attempts integer NOT NULL CHECK (attempts >= 0),
  last_error text,
  provider_message_id text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  sent_at timestamptz,
  revivals integer CHECK (revivals >= 0),
  -- The provider's last delivery report as the JSON text it came in (text, not jsonb: a report
  -- with a NUL or a lone surrogate in a free-text field must still be kept, never refused).
  delivery text,
  delivery_failures integer CHECK (delivery_failures >= 0),
  -- In the operator's undelivered view: ended without reaching the phone, not resent yet.
  in_undelivered_view boolean NOT NULL DEFAULT false,
  CHECK (NOT in_undelivered_view OR status IN ('rejected', 'undelivered'))
);

CREATE INDEX sms_notifications_by_purchase ON sms_notifications (purchase_id, created_at, id);
-- The sweep's work list: notifications not yet final, oldest first.
CREATE INDEX sms_notifications_open ON sms_notifications (created_at, id)
  WHERE status IN ('queued', 'sending');
-- The undelivered view (listed oldest first, counted for the sms_undelivered gauge).
CREATE INDEX sms_notifications_undelivered ON sms_notifications (created_at, id)
  WHERE in_undelivered_view;

-- Which notification a provider's message id is, for its delivery reports. Relinking a message
-- id names the newer notification (as the Redis key it replaces did).
CREATE TABLE sms_provider_messages (
  provider_message_id text PRIMARY KEY,
  notification_id text NOT NULL,
  linked_at timestamptz NOT NULL DEFAULT now()
);

-- The daily report (src/records/report.ts) selects purchases by the time of their transitions:
-- the successes of a day, and what moved after it (to tell the state each had at its end).
CREATE INDEX purchase_transitions_by_time ON purchase_transitions (at);
