import type { HttpAnswer } from '../../vas/http';
import { ProviderCaller, TokenCache, expiresIn, type CallerOptions } from '../caller';
import { MalformedAnswerError, PaymentNotPossibleError, errorFromAnswer } from '../errors';
import type {
  CollectAccepted,
  CollectRequest,
  InboundCallback,
  PaymentCallContext,
  PaymentProvider,
  PaymentStatus,
  ProviderNotice,
  RefundQuery,
  RefundRequest,
  RefundStatus,
  StatusQuery,
} from '../port';
import { amountText, field, moneyFromWire, optional, promptText, wireText } from '../wire';
import { MOMO_REASONS, MOMO_STATES, momoReferenceId } from './codes';

/**
 * MTN MoMo Open API, Collections: request-to-pay keyed by our `X-Reference-Id` (derived from the
 * payment's reference, see momoReferenceId), its status, its callback; refunds through the
 * Disbursement product's refund operation under a new reference derived from the refund's.
 * MoMo de-duplicates on the reference (409), so both requests are resent safely with the same one.
 */
const NAME = 'momo';

export interface MomoSettings {
  /** `https://proxy.momoapi.mtn.com` (sandbox `https://sandbox.momodeveloper.mtn.com`). */
  baseUrl: string;
  /** The API user (a UUID) and its key: the token's Basic credentials. */
  apiUser: string;
  apiKey: string;
  /** `Ocp-Apim-Subscription-Key` of the Collection product. */
  subscriptionKey: string;
  /** `X-Target-Environment`: `sandbox`, or the value MTN issued for the country (`mtnuganda`). */
  targetEnvironment: string;
  /** Our payment callback (X-Callback-Url; its host must be the API user's callback host). */
  callbackUrl: string;
  /** Our refund callback. */
  refundCallbackUrl: string;
  /**
   * The Disbursement product (refunds): its subscription key, and its API user and key (default:
   * the Collection ones). No key: refunds are refused before any call.
   */
  disbursement?: { subscriptionKey: string; apiUser: string; apiKey: string };
  /** When set, a purchase in another currency is refused before any call. */
  currency?: string;
}

export class MomoAdapter implements PaymentProvider {
  readonly name = NAME;
  /** MoMo signs nothing and the reference is ours: a success is believed once its status says so. */
  readonly callbackProof = 'none' as const;

  /** See PaymentProvider.requestBudgetMs: every call of a collect goes through the caller. */
  get requestBudgetMs(): number {
    return this.caller.callBudgetMs;
  }
  private readonly caller: ProviderCaller;
  private readonly collectionToken: TokenCache;
  private readonly disbursementToken: TokenCache | null;

  constructor(
    private readonly settings: MomoSettings,
    options: CallerOptions = {},
  ) {
    this.caller = new ProviderCaller(NAME, settings.baseUrl, options);
    this.collectionToken = this.tokenCache('collection', settings);
    this.disbursementToken = settings.disbursement
      ? this.tokenCache('disbursement', settings.disbursement)
      : null;
  }

  async collect(request: CollectRequest, ctx: PaymentCallContext): Promise<CollectAccepted> {
    this.checkCurrency('collect', request.amount.currency);
    const referenceId = momoReferenceId(request.reference);
    const note = promptText(request.description, 160) || 'Payment';
    const body = {
      amount: amountText(request.amount.minor, 2),
      currency: request.amount.currency,
      externalId: request.reference,
      payer: { partyIdType: 'MSISDN', partyId: request.payerMsisdn },
      payerMessage: note,
      payeeNote: note,
    };
    return this.caller.call(
      {
        operation: 'collect',
        method: 'POST',
        path: '/collection/v1_0/requesttopay',
        body,
        headers: this.headers(this.settings.subscriptionKey, referenceId, this.settings.callbackUrl),
        // Same X-Reference-Id on every attempt: MoMo answers 409 to a second one.
        idempotent: true,
        token: this.collectionToken,
      },
      ctx,
      (answer) => {
        // 409: an earlier attempt with this reference landed; its status tells the rest.
        if (answer.status === 202 || isExisting(answer))
          return { accepted: true, providerReference: referenceId };
        throw errorFromAnswer({ provider: NAME, operation: 'collect', ...answer });
      },
    );
  }

  async status(query: StatusQuery, ctx: PaymentCallContext): Promise<PaymentStatus> {
    const referenceId = query.providerReference ?? momoReferenceId(query.reference);
    return this.caller.call(
      {
        operation: 'status',
        method: 'GET',
        path: `/collection/v1_0/requesttopay/${encodeURIComponent(referenceId)}`,
        headers: this.headers(this.settings.subscriptionKey),
        idempotent: true,
        token: this.collectionToken,
      },
      ctx,
      (answer): PaymentStatus => {
        if (answer.status === 404 && code(answer.body) !== undefined)
          return { state: 'failed', reason: 'not_found', detail: 'RESOURCE_NOT_FOUND' };
        if (answer.status !== 200) throw errorFromAnswer({ provider: NAME, operation: 'status', ...answer });
        return this.paymentState(answer.body, 'status');
      },
    );
  }

  async refund(request: RefundRequest, ctx: PaymentCallContext): Promise<RefundStatus> {
    const disbursement = this.disbursement('refund');
    this.checkCurrency('refund', request.amount.currency);
    const referenceId = momoReferenceId(request.refundReference);
    const body = {
      amount: amountText(request.amount.minor, 2),
      currency: request.amount.currency,
      externalId: request.refundReference,
      payerMessage: 'Refund',
      payeeNote: 'Refund',
      referenceIdToRefund: request.providerReference ?? momoReferenceId(request.reference),
    };
    return this.caller.call(
      {
        operation: 'refund',
        method: 'POST',
        path: '/disbursement/v1_0/refund',
        body,
        headers: this.headers(disbursement.subscriptionKey, referenceId, this.settings.refundCallbackUrl),
        idempotent: true,
        token: this.disbursementToken as TokenCache,
      },
      ctx,
      (answer): RefundStatus => {
        if (answer.status === 202 || isExisting(answer))
          return { state: 'pending', providerReference: referenceId };
        throw errorFromAnswer({ provider: NAME, operation: 'refund', ...answer });
      },
    );
  }

  async refundStatus(query: RefundQuery, ctx: PaymentCallContext): Promise<RefundStatus> {
    const disbursement = this.disbursement('refund_status');
    const referenceId = query.providerReference ?? momoReferenceId(query.refundReference);
    return this.caller.call(
      {
        operation: 'refund_status',
        method: 'GET',
        path: `/disbursement/v1_0/refund/${encodeURIComponent(referenceId)}`,
        headers: this.headers(disbursement.subscriptionKey),
        idempotent: true,
        token: this.disbursementToken as TokenCache,
      },
      ctx,
      (answer): RefundStatus => {
        // No such refund: the request never landed, so nothing was returned.
        if (answer.status === 404 && code(answer.body) !== undefined)
          return { state: 'failed', providerReference: referenceId, detail: 'RESOURCE_NOT_FOUND' };
        if (answer.status !== 200)
          throw errorFromAnswer({ provider: NAME, operation: 'refund_status', ...answer });
        const state = MOMO_STATES.get(field(answer.body, 'status')) ?? 'pending';
        return {
          state,
          providerReference: referenceId,
          ...optional('detail', state === 'failed' ? reasonCode(answer.body) : undefined),
        };
      },
    );
  }

  /**
   * The callback's body is the status answer's (MTN: "similar"); it carries our `externalId`: the
   * payment's reference, or the refund's on the refund route. Sent by PUT or POST.
   */
  parseCallback(callback: InboundCallback): ProviderNotice | null {
    const { body } = callback;
    const externalId = wireText(field(body, 'externalId'));
    const status = wireText(field(body, 'status'));
    if (!externalId || !status) return null;
    const referenceId = wireText(field(body, 'referenceId'));
    if (callback.kind === 'payment') {
      return {
        type: 'payment',
        reference: externalId,
        ...optional('providerReference', referenceId),
        ...optional('payerMsisdn', wireText(field(field(body, 'payer'), 'partyId'))),
        ...this.paymentState(body, 'callback'),
      };
    }
    const state = MOMO_STATES.get(status) ?? 'pending';
    const currency = wireText(field(body, 'currency'));
    return {
      type: 'refund',
      refundReference: externalId,
      providerReference: referenceId ?? momoReferenceId(externalId),
      state,
      ...optional('detail', state === 'failed' ? reasonCode(body) : undefined),
      ...optional('amount', currency ? moneyFromWire(field(body, 'amount'), currency) : undefined),
      ...optional('receipt', wireText(field(body, 'financialTransactionId'))),
    };
  }

  private paymentState(body: unknown, operation: string): PaymentStatus {
    const status = field(body, 'status');
    if (status === undefined)
      throw new MalformedAnswerError(`momo ${operation}: no status in the answer (outcome unknown)`, 200);
    const state = MOMO_STATES.get(status) ?? 'pending';
    const currency = wireText(field(body, 'currency'));
    const amount = currency ? moneyFromWire(field(body, 'amount'), currency) : undefined;
    if (state === 'successful')
      return {
        state,
        ...optional('amount', amount),
        ...optional('receipt', wireText(field(body, 'financialTransactionId'))),
      };
    if (state === 'pending') return { state };
    const reason = reasonCode(body);
    return {
      state,
      reason: MOMO_REASONS.get(reason) ?? 'other',
      ...optional('detail', reason),
      ...optional('amount', amount),
    };
  }

  private headers(
    subscriptionKey: string,
    referenceId?: string,
    callbackUrl?: string,
  ): Record<string, string> {
    return {
      'Ocp-Apim-Subscription-Key': subscriptionKey,
      'X-Target-Environment': this.settings.targetEnvironment,
      ...(referenceId && { 'X-Reference-Id': referenceId }),
      ...(callbackUrl && { 'X-Callback-Url': callbackUrl }),
    };
  }

  private tokenCache(
    product: 'collection' | 'disbursement',
    credentials: { subscriptionKey: string; apiUser: string; apiKey: string },
  ) {
    const basic = Buffer.from(`${credentials.apiUser}:${credentials.apiKey}`).toString('base64');
    const operation = `${product}_token`;
    return new TokenCache(
      (ctx) =>
        this.caller.call(
          {
            operation,
            method: 'POST',
            // No body: MoMo answers 400 to a token request with one.
            path: `/${product}/token/`,
            headers: {
              Authorization: `Basic ${basic}`,
              'Ocp-Apim-Subscription-Key': credentials.subscriptionKey,
            },
            idempotent: true,
          },
          ctx,
          (answer) => {
            const token = wireText(field(answer.body, 'access_token'));
            if (answer.status !== 200 || !token)
              throw errorFromAnswer({ provider: NAME, operation, ...answer });
            return { token, expiresInS: expiresIn(field(answer.body, 'expires_in')) };
          },
        ),
      () => this.caller.now,
    );
  }

  private disbursement(operation: string): NonNullable<MomoSettings['disbursement']> {
    if (!this.settings.disbursement)
      throw new PaymentNotPossibleError(
        NAME,
        operation,
        'no_disbursement_key',
        'momo refund: MOMO_DISBURSEMENT_SUBSCRIPTION_KEY is not set',
      );
    return this.settings.disbursement;
  }

  private checkCurrency(operation: string, currency: string): void {
    if (this.settings.currency && currency !== this.settings.currency)
      throw new PaymentNotPossibleError(
        NAME,
        operation,
        'currency_not_supported',
        `momo ${operation}: collects ${this.settings.currency}, not ${currency}`,
      );
  }
}

function code(body: unknown): string | undefined {
  return wireText(field(body, 'code'));
}

function isExisting(answer: HttpAnswer): boolean {
  return answer.status === 409 && code(answer.body) === 'RESOURCE_ALREADY_EXIST';
}

/** `reason` as a string, or `{code, message}` as one library models it. */
function reasonCode(body: unknown): string | undefined {
  const reason = field(body, 'reason');
  return wireText(reason) ?? wireText(field(reason, 'code'));
}
