-- The holds still open, oldest first: what the workers' sweep reads to find a hold whose sale
-- never became a purchase (src/sales/orphan-holds.ts). Small: a hold is open only while its
-- sale is under way.
CREATE INDEX float_holds_open ON float_holds (reserved_at) WHERE state = 'held';
