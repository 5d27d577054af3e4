-- Tokens at rest (src/records/sealing.ts): purchases' tokens and SMS texts are sealed by the
-- stores, and masked in place after TOKEN_RETENTION_DAYS by the workers' sweep. These partial
-- indexes keep that sweep from reading every row each minute: only rows that still keep a token
-- (or a text) are in them, by the time they were last written.
CREATE INDEX purchases_token_kept ON purchases (updated_at)
  WHERE jsonb_typeof(record -> 'result' -> 'rawToken') = 'string';
CREATE INDEX sms_messages_text_kept ON sms_messages (updated_at) WHERE message <> '***';
-- PII_RETENTION_DAYS: the purchases and payments whose numbers are not masked yet.
CREATE INDEX purchases_numbers_kept ON purchases (updated_at) WHERE requester_msisdn <> '***';
CREATE INDEX payments_number_kept ON payments (updated_at) WHERE payer_msisdn <> '***';
