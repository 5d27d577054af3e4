import { UnsupportedProductError } from './errors';
import { toRequestAmount } from './money';
import type {
  CallContext,
  PurchaseRequest,
  PurchaseService,
  RetryRequest,
  Transaction,
  VasProduct,
} from './port';
import { PurchaseCalls, type PurchaseStep } from './v1-adapter';
import { parseLegacyTransaction } from './wire';

/**
 * The legacy interface (`/api/topup/`, section 4.2): electricity only, `meter_number` in,
 * `meter_details` / `electricity_units` out, legacy error envelope — mapped to the same
 * `Transaction` and error classes as v1. It has no catalogue or accounts endpoints, so those
 * go through v1 (same host, same token) — see V1Reads.
 *
 * Notification flags are all false: the gateway delivers tokens and receipts by its own SMS
 * (localised, with key-change ordering and re-send), so the service must not send a second one.
 */

/** `source_tag` identifying this gateway in the service's records. */
export const LEGACY_SOURCE_TAG = 'ussd-gateway';

/** `YYYY-MM-DD HH:MM:SS` in the process's local time zone (the legacy examples carry no zone). */
export function legacyDate(date: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

function requireElectricity(productType: string): void {
  if (productType !== 'ELECTRICITY') throw new UnsupportedProductError(productType);
}

/** Body of legacy validate/confirm (4.2). */
export function legacyPurchaseBody(
  request: PurchaseRequest,
  now: Date = new Date(),
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    source_channel: request.sourceChannel,
    language: request.language,
    source_tag: LEGACY_SOURCE_TAG,
    debited_account_id: request.debitedAccountId,
    beneficiary_phone_number: request.beneficiaryPhoneNumber,
    meter_number: request.subscriberIdentifier,
    amount: toRequestAmount(request.amount.minor),
    currency: request.amount.currency,
    date: legacyDate(now),
    send_requester_sms: false,
    send_requester_email: false,
    send_beneficiary_sms: false,
    send_beneficiary_email: false,
  };
  if (request.chargesOnTop !== undefined) body.charges_on_top_flag = request.chargesOnTop;
  if (request.comment !== undefined) body.comment = request.comment;
  if (request.externalReference !== undefined) body.external_reference = request.externalReference;
  return body;
}

export class LegacyPurchaseService extends PurchaseCalls implements PurchaseService {
  /** The catalogue (a v1 read) narrowed to what this interface can sell: menus offer nothing it would refuse. */
  override async listProducts(ctx: CallContext): Promise<VasProduct[]> {
    return (await super.listProducts(ctx)).filter((product) => product.productType === 'ELECTRICITY');
  }

  protected override async purchase(
    { operation, kind }: PurchaseStep,
    request: PurchaseRequest,
    ctx: CallContext,
  ): Promise<Transaction> {
    requireElectricity(request.productType);
    const answer = await this.caller.call(
      { operation, method: 'POST', path: `/api/topup/${operation}`, body: legacyPurchaseBody(request), kind },
      ctx,
    );
    return parseLegacyTransaction(answer.body, answer.requestId, answer.status, request.providerCode);
  }

  async retry(request: RetryRequest, ctx: CallContext): Promise<Transaction> {
    requireElectricity(request.productType);
    const body = {
      date: legacyDate(),
      external_reference: request.externalReference,
      language: request.language,
      meter_number: request.subscriberIdentifier,
      source_channel: request.sourceChannel,
      source_tag: LEGACY_SOURCE_TAG,
    };
    const answer = await this.caller.call(
      { operation: 'retry', method: 'POST', path: '/api/topup/retry', body, kind: 'write' },
      ctx,
    );
    return parseLegacyTransaction(answer.body, answer.requestId, answer.status, null);
  }
}
