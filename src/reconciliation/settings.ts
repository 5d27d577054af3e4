/** The reconciliation's settings, as the config reads them (`RECONCILIATION_*`). */
export interface ReconciliationConfig {
  /** Local time of the nightly run for yesterday; null: no nightly run (the default). */
  nightlyAt: { hour: number; minute: number } | null;
  alertWebhookUrl: string | undefined;
  /** Finance's number (E.164 digits): an SMS when a day does not close. */
  alertMsisdn: string | undefined;
  lateWindowMs: number;
  /** Pull M-Pesa's statement by Daraja's Pull Transactions API. */
  pull: boolean;
}
