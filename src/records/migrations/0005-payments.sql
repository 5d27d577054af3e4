-- Payments (src/payments/store/sql.ts): the buyer's money, collected through a mobile-money
-- provider before a subscriber purchase is confirmed, and given back once when the purchase
-- could not be sold. Three rules are the database's, not only the code's:
--   one payment request per purchase (payments.purchase_id UNIQUE),
--   never confirm a purchase that needs collection before its payment is successful
--     (purchase_confirm_needs_payment),
--   at most one refund per payment, and only for a purchase that cannot have issued a token
--     (payment_refunds.payment_id UNIQUE, payment_refund_allowed).

-- Set when the purchase must be paid by the buyer (a subscriber's Buy/YES). Copied at insert from
-- `record.intent.paymentRequired`, or set when its payment is requested; never cleared.
ALTER TABLE purchases ADD COLUMN payment_required boolean NOT NULL DEFAULT false;

-- One row per payment request. `id` is our reference, a UUID: MoMo's X-Reference-Id and the
-- generic provider's key. `record` is the whole PaymentRecord; the columns beside it are copied
-- from it on every write, for lookups, reports and the checks below.
CREATE TABLE payments (
  id uuid PRIMARY KEY,
  purchase_id text NOT NULL UNIQUE REFERENCES purchases (id) ON DELETE CASCADE,
  provider text NOT NULL,
  payer_msisdn text NOT NULL,
  currency char(3) NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  state text NOT NULL CHECK (state IN ('requested', 'pending', 'successful', 'failed', 'unknown',
    'refund_requested', 'refunded', 'refund_failed', 'needs_attention')),
  version integer NOT NULL CHECK (version >= 1),
  provider_reference text,
  receipt text,
  reason text,
  requested_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  decided_at timestamptz,
  expires_at timestamptz NOT NULL,
  record jsonb NOT NULL
);

-- A provider's key names one payment of ours (Daraja's CheckoutRequestID, MoMo's reference).
CREATE UNIQUE INDEX payments_by_provider_reference ON payments (provider, provider_reference)
  WHERE provider_reference IS NOT NULL;
CREATE INDEX payments_by_state ON payments (state, requested_at, id);

CREATE TABLE payment_transitions (
  payment_id uuid NOT NULL REFERENCES payments (id) ON DELETE CASCADE,
  version integer NOT NULL,
  from_state text,
  to_state text NOT NULL,
  at timestamptz NOT NULL,
  -- The fields the transition wrote (NULL for the creation).
  patch jsonb,
  PRIMARY KEY (payment_id, version)
);

CREATE FUNCTION payment_transitions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'payment_transitions is append-only';
END;
$$;
CREATE TRIGGER payment_transitions_no_update BEFORE UPDATE ON payment_transitions
  FOR EACH ROW EXECUTE FUNCTION payment_transitions_append_only();

-- At most one refund per payment, always of the whole amount. `id` is the refund's own key
-- (MoMo's new X-Reference-Id, the generic provider's). Its state moves with the payment's
-- refund states (refund_requested → requested, refunded, refund_failed → failed, needs_attention).
CREATE TABLE payment_refunds (
  id uuid PRIMARY KEY,
  payment_id uuid NOT NULL UNIQUE REFERENCES payments (id) ON DELETE CASCADE,
  purchase_id text NOT NULL REFERENCES purchases (id) ON DELETE CASCADE,
  state text NOT NULL CHECK (state IN ('requested', 'refunded', 'failed', 'needs_attention')),
  currency char(3) NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  reason text NOT NULL,
  provider_reference text,
  requested_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  decided_at timestamptz
);

CREATE INDEX payment_refunds_by_provider_reference ON payment_refunds (provider_reference)
  WHERE provider_reference IS NOT NULL;

-- Every callback a provider sent, as read by its adapter, kept before it is acted on: for care
-- ("everything known"), and because a Daraja callback can arrive before the push's answer told
-- us its CheckoutRequestID — such a notice waits here unmatched (payment_id NULL) until it does.
CREATE TABLE payment_notices (
  id bigserial PRIMARY KEY,
  received_at timestamptz NOT NULL,
  provider text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('payment', 'refund')),
  reference text,
  provider_reference text,
  payment_id uuid REFERENCES payments (id) ON DELETE CASCADE,
  outcome text NOT NULL CHECK (outcome IN ('unmatched', 'applied', 'duplicate', 'mismatch', 'ignored')),
  notice jsonb NOT NULL
);

CREATE INDEX payment_notices_unmatched ON payment_notices (provider, provider_reference)
  WHERE payment_id IS NULL;
CREATE INDEX payment_notices_by_payment ON payment_notices (payment_id, id);

-- A purchase needing collection is written `created`, and payment_required is never cleared.
CREATE FUNCTION purchase_payment_required_at_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.payment_required := NEW.payment_required
    OR coalesce((NEW.record -> 'intent' ->> 'paymentRequired')::boolean, false);
  IF NEW.payment_required AND NEW.state <> 'created' THEN
    RAISE EXCEPTION 'purchase % needs payment and must be written created, not %', NEW.id, NEW.state
      USING ERRCODE = 'check_violation', CONSTRAINT = 'purchase_confirm_needs_payment';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER purchases_payment_required_at_insert BEFORE INSERT ON purchases
  FOR EACH ROW EXECUTE FUNCTION purchase_payment_required_at_insert();

-- Never confirm before the buyer's payment is known successful: moving a purchase that needs
-- collection into `confirming` is refused unless its payment is `successful` (not requested,
-- pending, failed, unknown, nor being refunded). The payment row is read FOR SHARE: a refund
-- starting at the same moment waits for this commit (or this waits for it and then sees it).
CREATE FUNCTION purchase_confirm_needs_payment() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  paid text;
BEGIN
  IF OLD.payment_required AND NOT NEW.payment_required THEN
    RAISE EXCEPTION 'purchase %: payment_required cannot be cleared', NEW.id
      USING ERRCODE = 'check_violation', CONSTRAINT = 'purchase_confirm_needs_payment';
  END IF;
  IF NEW.payment_required AND NEW.state = 'confirming' AND OLD.state IS DISTINCT FROM 'confirming' THEN
    SELECT state INTO paid FROM payments WHERE purchase_id = NEW.id FOR SHARE;
    IF paid IS DISTINCT FROM 'successful' THEN
      RAISE EXCEPTION 'purchase % cannot be confirmed: its payment is %', NEW.id, coalesce(paid, 'not requested')
        USING ERRCODE = 'check_violation', CONSTRAINT = 'purchase_confirm_needs_payment';
    END IF;
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER purchases_confirm_needs_payment BEFORE UPDATE ON purchases
  FOR EACH ROW WHEN (OLD.payment_required OR NEW.payment_required)
  EXECUTE FUNCTION purchase_confirm_needs_payment();

-- A refund is never asked for a purchase that might have issued a token: its purchase must be
-- `failed` and either never confirmed (ended unpaid, or money that came after it was ended) or
-- failed with `charged: false` — and not a "no charge was found" verdict still being re-checked
-- (a late success could still correct it). The purchase row is read FOR SHARE, so it cannot
-- move into `confirming` while this refund commits. The refund returns the whole payment.
CREATE FUNCTION payment_refund_allowed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  purchase record;
  payment record;
BEGIN
  SELECT state, record INTO purchase FROM purchases WHERE id = NEW.purchase_id FOR SHARE;
  SELECT purchase_id, currency, amount_minor INTO payment FROM payments WHERE id = NEW.payment_id;
  IF payment.purchase_id IS DISTINCT FROM NEW.purchase_id
     OR payment.currency <> NEW.currency OR payment.amount_minor <> NEW.amount_minor THEN
    RAISE EXCEPTION 'refund % must return the whole payment % of its purchase', NEW.id, NEW.payment_id
      USING ERRCODE = 'check_violation', CONSTRAINT = 'payment_refund_allowed';
  END IF;
  IF purchase.state IS DISTINCT FROM 'failed' OR NOT (
       coalesce((purchase.record ->> 'confirmAttempts')::integer, 0) = 0
       OR (purchase.record -> 'failure' ->> 'charged' = 'false'
           AND NOT (purchase.record -> 'failure' ->> 'code' = 'transaction_not_found'
                    AND coalesce((purchase.record ->> 'recheckUntil')::timestamptz > now(), false))))
  THEN
    RAISE EXCEPTION 'refund refused: purchase % (%) might have issued a token', NEW.purchase_id,
      coalesce(purchase.state, 'missing')
      USING ERRCODE = 'check_violation', CONSTRAINT = 'payment_refund_allowed';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER payment_refunds_allowed BEFORE INSERT ON payment_refunds
  FOR EACH ROW EXECUTE FUNCTION payment_refund_allowed();
