-- A token issued late (a re-check found the confirm had succeeded after all) and a refund of the
-- same purchase exclude each other, whichever commits first: the buyer never ends with the token
-- and the money back unseen.
-- * A purchase that needs collection cannot become `succeeded` once a refund of its payment was
--   started (the late success is sent to the buyer all the same, and the purchase goes to the care
--   queue with both facts).
-- * A refund is refused for a purchase on which a late success was noted (`lateSuccess`).
-- Each side reads the other's row under lock: the refund reads the purchase FOR SHARE, the move
-- to `succeeded` holds the purchase row and reads the refunds in a statement of its own.
CREATE FUNCTION purchase_success_not_refunded() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.state = 'succeeded' AND OLD.state IS DISTINCT FROM 'succeeded'
     AND EXISTS (SELECT 1 FROM payment_refunds WHERE purchase_id = NEW.id) THEN
    RAISE EXCEPTION 'purchase % cannot succeed: its payment is being refunded', NEW.id
      USING ERRCODE = 'check_violation', CONSTRAINT = 'purchase_success_after_refund';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER purchases_success_not_refunded BEFORE UPDATE ON purchases
  FOR EACH ROW WHEN (NEW.payment_required AND NEW.state = 'succeeded')
  EXECUTE FUNCTION purchase_success_not_refunded();

CREATE OR REPLACE FUNCTION payment_refund_allowed() RETURNS trigger LANGUAGE plpgsql AS $$
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
  IF purchase.state IS DISTINCT FROM 'failed' OR purchase.record ? 'lateSuccess' OR NOT (
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
