import { createHmac } from 'node:crypto';
import { sameSecret } from '../../http/secrets';
import { wireTable } from '../../http/wire-table';
import { ProviderCaller, type CallerOptions } from '../caller';
import { CallbackAuthenticationError, MalformedAnswerError, errorFromAnswer } from '../errors';
import type {
  CollectAccepted,
  CollectRequest,
  CallbackProof,
  InboundCallback,
  PaymentCallContext,
  PaymentFailureReason,
  PaymentProvider,
  PaymentState,
  PaymentStatus,
  ProviderNotice,
  RefundQuery,
  RefundRequest,
  RefundStatus,
  StatusQuery,
} from '../port';
import { amountText, field, moneyFromWire, optional, wireText } from '../wire';

/**
 * The generic JSON provider an operator implements over its own wallet or bank: four POSTs
 * (collect, status, refund, refund-status) and a callback, authenticated by a bearer secret or an
 * HMAC signature. The contract is docs/payments-http-provider.md; this adapter is its client.
 */
const NAME = 'http';

export interface HttpProviderSettings {
  /** The operator's endpoint base, e.g. `https://wallet.example.com/gateway`. */
  url: string;
  /** Shared secret: the bearer token, or the HMAC key. */
  secret: string;
  /** `hmac` (default): `X-Signature` both ways; `bearer`: `Authorization: Bearer <secret>` on our calls. */
  auth: 'hmac' | 'bearer';
  callbackUrl: string;
  refundCallbackUrl: string;
  /** Oldest signed callback accepted (default 300 s): a replayed one is refused after that. */
  signatureToleranceS?: number;
}

export const SIGNATURE_HEADER = 'X-Signature';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: the signature both ways. */
export function httpSignature(secret: string, timestampS: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestampS}.${body}`, 'utf8').digest('hex');
  return `t=${timestampS},v1=${mac}`;
}

const STATES = wireTable<PaymentState>({ pending: 'pending', successful: 'successful', failed: 'failed' });
const REASONS = wireTable<PaymentFailureReason>({
  declined: 'declined',
  insufficient_funds: 'insufficient_funds',
  wrong_pin: 'wrong_pin',
  expired: 'expired',
  limit_reached: 'limit_reached',
  unreachable: 'unreachable',
  account_blocked: 'account_blocked',
  not_found: 'not_found',
  other: 'other',
});

export class HttpProviderAdapter implements PaymentProvider {
  readonly name = NAME;

  /** See PaymentProvider.requestBudgetMs: every call of a collect goes through the caller. */
  get requestBudgetMs(): number {
    return this.caller.callBudgetMs;
  }

  /** Signed callbacks (hmac) are the service's own; with `bearer`, only its status query is believed. */
  get callbackProof(): CallbackProof {
    return this.settings.auth === 'hmac' ? 'signature' : 'none';
  }
  private readonly caller: ProviderCaller;

  constructor(
    private readonly settings: HttpProviderSettings,
    options: CallerOptions = {},
  ) {
    this.caller = new ProviderCaller(NAME, settings.url, options);
  }

  async collect(request: CollectRequest, ctx: PaymentCallContext): Promise<CollectAccepted> {
    const body = {
      reference: request.reference,
      payer: { msisdn: request.payerMsisdn },
      amount: wireMoney(request.amount),
      description: request.description,
      callbackUrl: this.settings.callbackUrl,
    };
    // The contract makes collect idempotent by reference: a resend never prompts twice.
    // A 2xx is the acceptance; its body (with the provider's id) is optional.
    return this.post(
      'collect',
      '/collect',
      body,
      ctx,
      (answer) => ({
        accepted: true,
        providerReference: wireText(field(answer, 'providerReference')) ?? null,
      }),
      { emptyIsFine: true },
    );
  }

  async status(query: StatusQuery, ctx: PaymentCallContext): Promise<PaymentStatus> {
    return this.post('status', '/status', query, ctx, (answer) => paymentStatus(answer, 'status'), {
      notFound: (): PaymentStatus => ({ state: 'failed', reason: 'not_found' }),
    });
  }

  async refund(request: RefundRequest, ctx: PaymentCallContext): Promise<RefundStatus> {
    const body = {
      refundReference: request.refundReference,
      reference: request.reference,
      providerReference: request.providerReference,
      receipt: request.receipt,
      payer: { msisdn: request.payerMsisdn },
      amount: wireMoney(request.amount),
      callbackUrl: this.settings.refundCallbackUrl,
    };
    return this.post('refund', '/refund', body, ctx, (answer) => refundStatus(answer, 'refund'));
  }

  async refundStatus(query: RefundQuery, ctx: PaymentCallContext): Promise<RefundStatus> {
    return this.post(
      'refund_status',
      '/refund-status',
      query,
      ctx,
      (answer): RefundStatus => refundStatus(answer, 'refund_status'),
      {
        notFound: (): RefundStatus => ({
          state: 'failed',
          providerReference: query.providerReference,
          detail: 'not_found',
        }),
      },
    );
  }

  parseCallback(callback: InboundCallback): ProviderNotice | null {
    if (this.settings.auth === 'hmac') this.verify(callback);
    const { body } = callback;
    const type = field(body, 'type');
    if (type === 'payment') {
      const reference = wireText(field(body, 'reference'));
      const providerReference = wireText(field(body, 'providerReference'));
      if (!reference && !providerReference) return null;
      return {
        type: 'payment',
        ...optional('reference', reference),
        ...optional('providerReference', providerReference),
        ...optional('payerMsisdn', wireText(field(field(body, 'payer'), 'msisdn'))),
        ...paymentStatus(body, 'callback'),
      };
    }
    if (type === 'refund') {
      const refundReference = wireText(field(body, 'refundReference'));
      if (!refundReference) return null;
      return { type: 'refund', refundReference, ...refundStatus(body, 'callback') };
    }
    return null;
  }

  /** A signed callback: `X-Signature` over its exact body, made within the tolerance. */
  private verify(callback: InboundCallback): void {
    const header = callback.headers[SIGNATURE_HEADER.toLowerCase()];
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
    if (!match) throw new CallbackAuthenticationError('http callback: no X-Signature');
    if (callback.rawBody === undefined)
      throw new CallbackAuthenticationError('http callback: no raw body to check');
    const timestampS = Number(match[1]);
    const ageS = Math.abs(this.caller.now / 1000 - timestampS);
    if (ageS > (this.settings.signatureToleranceS ?? 300))
      throw new CallbackAuthenticationError('http callback: signature too old');
    if (!sameSecret(header as string, httpSignature(this.settings.secret, timestampS, callback.rawBody)))
      throw new CallbackAuthenticationError('http callback: wrong signature');
  }

  private post<T>(
    operation: string,
    path: string,
    body: unknown,
    ctx: PaymentCallContext,
    read: (answer: unknown) => T,
    special: { notFound?: () => T; emptyIsFine?: boolean } = {},
  ): Promise<T> {
    const rawBody = JSON.stringify(body);
    const headers: Record<string, string> =
      this.settings.auth === 'bearer'
        ? { Authorization: `Bearer ${this.settings.secret}` }
        : {
            [SIGNATURE_HEADER]: httpSignature(
              this.settings.secret,
              Math.floor(this.caller.now / 1000),
              rawBody,
            ),
          };
    return this.caller.call(
      // Every operation of the contract is idempotent by its reference (collect, refund) or a read.
      { operation, method: 'POST', path, rawBody, headers, idempotent: true },
      ctx,
      (answer) => {
        if (
          answer.status === 404 &&
          special.notFound &&
          field(field(answer.body, 'error'), 'code') === 'not_found'
        )
          return special.notFound();
        if (answer.status < 200 || answer.status > 299)
          throw errorFromAnswer({ provider: NAME, operation, ...answer });
        if ((typeof answer.body !== 'object' || answer.body === null) && !special.emptyIsFine)
          throw new MalformedAnswerError(
            `http ${operation}: the answer is not a JSON object (outcome unknown)`,
            answer.status,
          );
        return read(answer.body);
      },
    );
  }
}

function wireMoney(money: CollectRequest['amount']): { value: string; currency: string } {
  return { value: amountText(money.minor, 2), currency: money.currency };
}

function moneyOf(value: unknown) {
  const currency = wireText(field(value, 'currency'));
  return currency && /^[A-Z]{3}$/.test(currency) ? moneyFromWire(field(value, 'value'), currency) : undefined;
}

function stateOf(body: unknown, operation: string): PaymentState {
  const state = STATES.get(field(body, 'status'));
  if (!state)
    throw new MalformedAnswerError(`http ${operation}: status is not pending, successful or failed`, 200);
  return state;
}

function paymentStatus(body: unknown, operation: string): PaymentStatus {
  const state = stateOf(body, operation);
  const detail = wireText(field(body, 'detail'));
  return {
    state,
    ...(state === 'failed' && { reason: REASONS.get(field(body, 'reason')) ?? 'other' }),
    ...optional('amount', moneyOf(field(body, 'amount'))),
    ...optional('receipt', wireText(field(body, 'receipt'))),
    ...optional('detail', detail),
  };
}

function refundStatus(
  body: unknown,
  operation: string,
): RefundStatus & { amount?: ReturnType<typeof moneyOf>; receipt?: string } {
  return {
    state: stateOf(body, operation),
    providerReference: wireText(field(body, 'providerReference')) ?? null,
    ...optional('detail', wireText(field(body, 'detail'))),
    ...optional('amount', moneyOf(field(body, 'amount'))),
    ...optional('receipt', wireText(field(body, 'receipt'))),
  };
}
