import { MASKED, maskPersonalDataOf, openPurchasesOf } from '../purchases/store/sql';
import type { Database } from '../records/database';

/** What a data-deletion request removed or masked for one number. */
export interface ForgetReport {
  /** Saved meters deleted. */
  savedMeters: number;
  /** Settled purchases whose numbers, identifier and token were masked (amounts kept). */
  purchases: number;
  /** Sent (or given up) SMS to the number whose recipient and text were masked. */
  sms: number;
  /** Complaint cases whose number was masked (their operator notes stay). */
  cases: number;
  /** Purchases still open: they keep the number until they settle; run the request again then. */
  stillOpen: number;
}

/**
 * A data-deletion request (`npm run cli -- subscriber forget --msisdn …`): in one transaction, the
 * number's saved meters go, and its settled purchases, the SMS it was sent and its cases keep their
 * money fields, states, references and times with the number, identifiers and tokens masked in
 * place (as `PII_RETENTION_DAYS` masks old purchases). An SMS not yet final is left to be sent.
 */
export async function forgetSubscriber(db: Database, msisdn: string): Promise<ForgetReport> {
  return db.transaction(async (tx) => {
    const savedMeters = (await tx.query('DELETE FROM saved_meters WHERE msisdn = $1', [msisdn])).rowCount;
    const purchases = await maskPersonalDataOf(tx, msisdn);
    // A message's id ends with its recipient: masked too, and the delivery reports' link with it.
    const sms = await tx.query<{ id: string }>(
      `WITH gone AS (
         SELECT id FROM sms_messages
          WHERE recipient = $1 AND status IN ('sent', 'rejected', 'undelivered') FOR UPDATE
       ), links AS (
         UPDATE sms_provider_messages l SET message_id = replace(l.message_id, $1, $2)
           FROM gone WHERE l.message_id = gone.id
       )
       UPDATE sms_messages m
          SET id = replace(m.id, $1, $2), recipient = $2, message = $2, in_undelivered_view = false
         FROM gone WHERE m.id = gone.id
       RETURNING m.id`,
      [msisdn, MASKED],
    );
    const cases = (await tx.query('UPDATE care_cases SET msisdn = $2 WHERE msisdn = $1', [msisdn, MASKED]))
      .rowCount;
    return { savedMeters, purchases, sms: sms.rowCount, cases, stillOpen: await openPurchasesOf(tx, msisdn) };
  });
}
