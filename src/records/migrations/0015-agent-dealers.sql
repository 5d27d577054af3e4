-- A dealer by the operator's word (issue 32 §3), not only once it has a retailer: a new dealer
-- sees "My retailers" and adds its first retailer by USSD. An assistant sells from its outlet's
-- float and cannot be a dealer. Registering a retailer under an agent marks that agent a dealer
-- (src/agents/store/sql.ts, in the same transaction); it is turned off only while no agent names
-- it its dealer.
ALTER TABLE agents ADD COLUMN dealer boolean NOT NULL DEFAULT false;
ALTER TABLE agents ADD CONSTRAINT agents_assistant_not_dealer CHECK (NOT (dealer AND outlet_msisdn IS NOT NULL));
-- The dealers there are: every agent some retailer names (data, no money history touched).
UPDATE agents SET dealer = true
  WHERE outlet_msisdn IS NULL AND msisdn IN (SELECT dealer_msisdn FROM agents WHERE dealer_msisdn IS NOT NULL);
