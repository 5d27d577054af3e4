import { NotFoundError, PurchaseServiceError, outcomeOf } from '../vas/errors';
import type { ProductType, PurchaseService } from '../vas/port';
import type { RunningPurchaseDesk } from './desk';
import type { PurchaseRecord } from './types';

/**
 * Re-deriving a purchase this gateway lost (Redis restarted empty) from the purchase service,
 * by its external reference: `retry` looks the transaction up by subscriber identifier +
 * external reference and answers the original result. Never confirms.
 */

/** What an operator knows of a lost purchase (the service's records have all of it). */
export interface LostPurchase {
  externalReference: string;
  subscriberIdentifier: string;
  productType: ProductType;
  /** E.164 digits: who gets the token SMS. */
  beneficiaryMsisdn: string;
  language: string;
}

export type RecoveryOutcome =
  /** Found successful and recorded; its token SMS is queued. */
  | 'recovered'
  /** Found successful; `--dry-run` wrote nothing. */
  | 'would_recover'
  /** The gateway already has a record with this external reference: nothing changed. */
  | 'exists'
  /** The service has no such transaction: no charge was found, nothing to recover. */
  | 'not_found'
  /** The service answered that the purchase failed (or is not settled): nothing to recover. */
  | 'not_successful'
  /** The service could not be asked (unreachable, an error of ours): try again. */
  | 'unchecked';

export interface Recovery {
  externalReference: string;
  outcome: RecoveryOutcome;
  detail: string;
  purchaseId?: string;
}

/** Look one lost purchase up at the service and, when it succeeded, record it and send its token. */
export async function recoverPurchase(
  lost: LostPurchase,
  deps: { service: PurchaseService; desk: RunningPurchaseDesk },
  options: { dryRun: boolean; requestId: string },
): Promise<Recovery> {
  const { externalReference } = lost;
  const known = await existingRecord(deps.desk, lost);
  if (known)
    return { externalReference, outcome: 'exists', detail: `already ${known.state}`, purchaseId: known.id };
  let tx;
  try {
    tx = await deps.service.retry(
      {
        sourceChannel: 'USSD',
        language: lost.language,
        productType: lost.productType,
        subscriberIdentifier: lost.subscriberIdentifier,
        externalReference,
      },
      { requestId: options.requestId },
    );
  } catch (error) {
    if (error instanceof NotFoundError && error.code === 'transaction_not_found')
      return { externalReference, outcome: 'not_found', detail: 'no transaction: no charge was found' };
    if (error instanceof PurchaseServiceError && outcomeOf(error) === 'rejected')
      return { externalReference, outcome: 'not_successful', detail: `${error.code}: ${error.message}` };
    return { externalReference, outcome: 'unchecked', detail: (error as Error).message };
  }
  if (tx.status !== 'SUCCESSFUL')
    return { externalReference, outcome: 'not_successful', detail: `status ${tx.status}` };
  if (options.dryRun)
    return { externalReference, outcome: 'would_recover', detail: `successful, reference ${tx.reference}` };
  const { created, record } = await deps.desk.adopt(
    {
      productType: lost.productType,
      providerCode: tx.providerCode ?? '',
      subscriberIdentifier: lost.subscriberIdentifier,
      amount: tx.net,
      debitedAccountId: 0, // not known to the gateway any more; the service's record has it
      beneficiaryMsisdn: lost.beneficiaryMsisdn,
      requesterMsisdn: lost.beneficiaryMsisdn,
      language: lost.language,
      channel: 'USSD',
      subscriberDetails: tx.subscriberDetails,
    },
    externalReference,
    tx,
  );
  return created
    ? {
        externalReference,
        outcome: 'recovered',
        detail: `token SMS queued, reference ${tx.reference}`,
        purchaseId: record.id,
      }
    : { externalReference, outcome: 'exists', detail: 'recovered before', purchaseId: record.id };
}

/** A record of this external reference that survived (looked up by its beneficiary's index). */
async function existingRecord(desk: RunningPurchaseDesk, lost: LostPurchase): Promise<PurchaseRecord | null> {
  const records = await desk.listByMsisdn(lost.beneficiaryMsisdn, { limit: 500 });
  return records.find((r) => r.externalReference === lost.externalReference) ?? null;
}

/** `ref,identifier,product,phone[,language]` per line (a header line and blank lines are skipped). */
export function parseLostPurchases(csv: string, defaultLanguage: string): LostPurchase[] {
  const lost: LostPurchase[] = [];
  for (const [index, line] of csv.split(/\r?\n/).entries()) {
    const cells = line.split(',').map((cell) => cell.trim());
    // A header line: `ref,identifier,…` as the README writes it, or `external_reference,…`.
    if (cells.every((cell) => cell === '') || /^(external|ref(erence)?$)/i.test(cells[0])) continue;
    const [externalReference, subscriberIdentifier, product, phone, language] = cells;
    const productType = product?.toUpperCase();
    if (
      !externalReference ||
      !subscriberIdentifier ||
      !phone ||
      !['ELECTRICITY', 'AIRTIME', 'WATER'].includes(productType)
    )
      throw new Error(
        `line ${index + 1}: expected ref,identifier,ELECTRICITY|AIRTIME|WATER,phone[,language]`,
      );
    lost.push({
      externalReference,
      subscriberIdentifier,
      productType: productType as ProductType,
      beneficiaryMsisdn: phone.replace(/^\+/, ''),
      language: language || defaultLanguage,
    });
  }
  return lost;
}
