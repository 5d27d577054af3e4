import { componentLogger } from '../observability/logger';
import type { ServiceCaller, SuccessAnswer } from './caller';
import { toRequestAmount } from './money';
import type {
  Account,
  CallContext,
  PurchaseRequest,
  PurchaseService,
  RetryRequest,
  SourceChannel,
  Transaction,
  VasProduct,
} from './port';
import { WireReader, parseAccount, parseProduct, parseV1Transaction } from './wire';

const log = componentLogger('vas');
const KNOWN_TYPES = new Set(['ELECTRICITY', 'AIRTIME', 'WATER']);

/**
 * v1 `source_channel` set (4.1) has no `SMS_MO`: SMS-originated purchases are sent as the
 * operator's `SMS_SOURCE_CHANNEL` (default `USSD`); the legacy interface has `SMS_MO` itself.
 */
export function v1SourceChannel(channel: SourceChannel, smsAs: string = 'USSD'): string {
  return channel === 'SMS_MO' ? smsAs : channel;
}

/** Body of v1 validate/confirm (4.1). */
export function v1PurchaseBody(request: PurchaseRequest, smsAs?: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    source_channel: v1SourceChannel(request.sourceChannel, smsAs),
    language: request.language,
    product_type: request.productType,
    provider_code: request.providerCode,
    debited_account_id: request.debitedAccountId,
    beneficiary_phone_number: request.beneficiaryPhoneNumber,
    subscriber_identifier: request.subscriberIdentifier,
    amount: toRequestAmount(request.amount.minor),
    currency: request.amount.currency,
  };
  if (request.chargesOnTop !== undefined) body.charges_on_top_flag = request.chargesOnTop;
  if (request.comment !== undefined) body.comment = request.comment;
  if (request.externalReference !== undefined) body.external_reference = request.externalReference;
  return body;
}

/** Catalogue and accounts: v1 only (the legacy interface has no such endpoints), shared by both adapters. */
export class V1Reads {
  constructor(protected readonly caller: ServiceCaller) {}

  async listProducts(ctx: CallContext): Promise<VasProduct[]> {
    const { answer, items } = await this.list('listProducts', '/public/v1/vas-products', 'vas products', ctx);
    return items
      .filter((item) => {
        const type = (item as { product_type?: unknown } | null)?.product_type;
        if (KNOWN_TYPES.has(type as string)) return true;
        log.warn('catalogue entry of an unknown product type skipped', { productType: String(type) });
        return false;
      })
      .map((item) => parseProduct(item, answer.requestId, answer.status));
  }

  async listAccounts(ctx: CallContext): Promise<Account[]> {
    const { answer, items } = await this.list('listAccounts', '/public/v1/accounts', 'accounts', ctx);
    return items
      .map((item) => parseAccount(item, answer.requestId, answer.status))
      .sort((a, b) => a.rank - b.rank);
  }

  async getAccount(id: number, ctx: CallContext): Promise<Account> {
    const answer = await this.get('getAccount', `/public/v1/accounts/${encodeURIComponent(String(id))}`, ctx);
    return parseAccount(answer.body, answer.requestId, answer.status);
  }

  /** A read (GET) of the catalogue or the accounts. */
  private get(operation: string, path: string, ctx: CallContext): Promise<SuccessAnswer> {
    return this.caller.call({ operation, method: 'GET', path, kind: 'read' }, ctx);
  }

  /** A read answering a list (`what`, named in a wire error): its items, still to be parsed. */
  private async list(
    operation: string,
    path: string,
    what: string,
    ctx: CallContext,
  ): Promise<{ answer: SuccessAnswer; items: unknown[] }> {
    const answer = await this.get(operation, path, ctx);
    return {
      answer,
      items: new WireReader(what, answer.requestId, answer.status).array(answer.body, 'body'),
    };
  }
}

/** A purchase call: validate reads, confirm writes. */
export type PurchaseStep = { operation: 'validate'; kind: 'read' } | { operation: 'confirm'; kind: 'write' };

/**
 * Validate and confirm, as both interfaces have them: the same purchase sent to each one's own
 * path (`purchase`), only a confirm writing.
 */
export abstract class PurchaseCalls extends V1Reads {
  validate(request: PurchaseRequest, ctx: CallContext): Promise<Transaction> {
    return this.purchase({ operation: 'validate', kind: 'read' }, request, ctx);
  }

  confirm(request: PurchaseRequest, ctx: CallContext): Promise<Transaction> {
    return this.purchase({ operation: 'confirm', kind: 'write' }, request, ctx);
  }

  protected abstract purchase(
    step: PurchaseStep,
    request: PurchaseRequest,
    ctx: CallContext,
  ): Promise<Transaction>;
}

/** The current interface (`/public/v1/`): all product types. */
export class V1PurchaseService extends PurchaseCalls implements PurchaseService {
  constructor(
    caller: ServiceCaller,
    private readonly smsSourceChannel: string = 'USSD',
  ) {
    super(caller);
  }

  protected override async purchase(
    { operation, kind }: PurchaseStep,
    request: PurchaseRequest,
    ctx: CallContext,
  ): Promise<Transaction> {
    const answer = await this.caller.call(
      {
        operation,
        method: 'POST',
        path: `/public/v1/purchases/${operation}`,
        body: v1PurchaseBody(request, this.smsSourceChannel),
        kind,
      },
      ctx,
    );
    return parseV1Transaction(answer.body, answer.requestId, answer.status);
  }

  async retry(request: RetryRequest, ctx: CallContext): Promise<Transaction> {
    const body = {
      source_channel: v1SourceChannel(request.sourceChannel, this.smsSourceChannel),
      language: request.language,
      subscriber_identifier: request.subscriberIdentifier,
      external_reference: request.externalReference,
    };
    const answer = await this.caller.call(
      { operation: 'retry', method: 'POST', path: '/public/v1/purchases/retry', body, kind: 'write' },
      ctx,
    );
    return parseV1Transaction(answer.body, answer.requestId, answer.status);
  }
}
