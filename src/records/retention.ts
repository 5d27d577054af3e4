/**
 * How long tokens stay readable in the records. A prepaid token is keyed in within days of the
 * sale; care resends one when a buyer lost the SMS or a meter refused it, which comes up within
 * weeks. Past that a kept token serves nobody, and an unused one is still money to whoever reads
 * it: 90 days covers a month's complaints three times over, and the usual dispute window.
 */
export const DEFAULT_TOKEN_RETENTION_DAYS = 90;
