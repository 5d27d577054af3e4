import { ProviderCaller, TokenCache, expiresIn, type CallerOptions } from '../caller';
import {
  MalformedAnswerError,
  PaymentNotPossibleError,
  ProviderRequestError,
  errorFromAnswer,
} from '../errors';
import type {
  CollectAccepted,
  CollectRequest,
  InboundCallback,
  PaymentCallContext,
  PaymentProvider,
  PaymentStatus,
  ProviderNotice,
  RefundRequest,
  RefundStatus,
  StatusQuery,
} from '../port';
import { amountText, field, moneyFromWire, optional, promptText, wireText } from '../wire';
import { REVERSAL_REFUNDED, STK_RESULTS } from './codes';

/**
 * Safaricom M-Pesa Daraja: STK push (M-Pesa Express) to collect, STK push query for the status,
 * the push's callback, and a transaction reversal to refund (its result comes on the ResultURL).
 * An STK push has no idempotency key: it is sent once and never again by this adapter — a push
 * whose answer was lost is `unknown`, resolved by the callback or, with no CheckoutRequestID to
 * query, never.
 */
const NAME = 'mpesa';

export interface MpesaSettings {
  /** `https://api.safaricom.co.ke` (sandbox `https://sandbox.safaricom.co.ke`). */
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
  /** BusinessShortCode: the paybill (or the store number of a till). */
  shortcode: string;
  /** The Lipa na M-Pesa Online passkey: only inside the Password, never sent or logged as is. */
  passkey: string;
  /** `CustomerPayBillOnline` (paybill, the default) or `CustomerBuyGoodsOnline` (till). */
  transactionType: 'CustomerPayBillOnline' | 'CustomerBuyGoodsOnline';
  /** Who receives the money: the shortcode for a paybill, the till number for a till. */
  partyB: string;
  /** Our payment callback (CallBackURL), with the callback secret in it. */
  callbackUrl: string;
  /** The reversal's ResultURL and QueueTimeOutURL (refunds). */
  refundResultUrl: string;
  refundTimeoutUrl: string;
  /** API operator with the "Org Reversals Initiator" role, and its encrypted password; no refunds without. */
  initiator?: string;
  securityCredential?: string;
  /** The currency M-Pesa collects in (KES); a purchase in another is refused before any call. */
  currency: string;
  /** Daraja takes whole shillings (0); a test double may take cents (2). */
  amountDecimals: 0 | 2;
}

/** `yyyyMMddHHmmss` in East Africa Time (UTC+3 all year): Daraja's Timestamp. */
export function darajaTimestamp(at: number): string {
  return new Date(at + 3 * 3600_000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** Password = base64(Shortcode + Passkey + Timestamp), built from the same timestamp as the body's. */
export function darajaPassword(shortcode: string, passkey: string, timestamp: string): string {
  return Buffer.from(`${shortcode}${passkey}${timestamp}`, 'utf8').toString('base64');
}

export class MpesaAdapter implements PaymentProvider {
  readonly name = NAME;
  /** The CheckoutRequestID comes only in the push's answer: a callback naming the stored one is Daraja's. */
  readonly callbackProof = 'provider_key' as const;

  /** See PaymentProvider.requestBudgetMs: every call of a collect goes through the caller. */
  get requestBudgetMs(): number {
    return this.caller.callBudgetMs;
  }
  private readonly caller: ProviderCaller;
  private readonly token: TokenCache;

  constructor(
    private readonly settings: MpesaSettings,
    options: CallerOptions = {},
  ) {
    this.caller = new ProviderCaller(NAME, settings.baseUrl, options);
    const basic = Buffer.from(`${settings.consumerKey}:${settings.consumerSecret}`).toString('base64');
    this.token = new TokenCache(
      (ctx) =>
        this.caller.call(
          {
            operation: 'token',
            method: 'GET',
            path: '/oauth/v1/generate?grant_type=client_credentials',
            headers: { Authorization: `Basic ${basic}` },
            idempotent: true,
          },
          ctx,
          (answer) => {
            const token = wireText(field(answer.body, 'access_token'));
            if (answer.status !== 200 || !token)
              throw errorFromAnswer({ provider: NAME, operation: 'token', ...answer });
            return { token, expiresInS: expiresIn(field(answer.body, 'expires_in')) };
          },
        ),
      () => this.caller.now,
    );
  }

  /** What every STK call opens with: the shortcode and its password, made from this moment's timestamp. */
  private stamp(): { BusinessShortCode: string; Password: string; Timestamp: string } {
    const timestamp = darajaTimestamp(this.caller.now);
    const { shortcode, passkey } = this.settings;
    return {
      BusinessShortCode: shortcode,
      Password: darajaPassword(shortcode, passkey, timestamp),
      Timestamp: timestamp,
    };
  }

  async collect(request: CollectRequest, ctx: PaymentCallContext): Promise<CollectAccepted> {
    const amount = this.amount('collect', request.amount);
    const body = {
      ...this.stamp(),
      TransactionType: this.settings.transactionType,
      Amount: amount,
      PartyA: request.payerMsisdn,
      PartyB: this.settings.partyB,
      PhoneNumber: request.payerMsisdn,
      CallBackURL: this.settings.callbackUrl,
      AccountReference: promptText(request.description, 12) || 'Payment',
      TransactionDesc: promptText(request.description, 13) || 'Payment',
    };
    // Never re-sent (idempotent: false): a second push could take the money twice.
    return this.caller.call(
      {
        operation: 'collect',
        method: 'POST',
        path: '/mpesa/stkpush/v1/processrequest',
        body,
        idempotent: false,
        token: this.token,
      },
      ctx,
      (answer) => {
        if (answer.status !== 200) throw errorFromAnswer({ provider: NAME, operation: 'collect', ...answer });
        const code = wireText(field(answer.body, 'ResponseCode'));
        const checkout = wireText(field(answer.body, 'CheckoutRequestID'));
        if (code !== undefined && code !== '0') throw notAccepted('collect', code, answer.body);
        if (code === undefined || !checkout)
          throw new MalformedAnswerError(
            'mpesa collect: answer without ResponseCode 0 and CheckoutRequestID (outcome unknown)',
            200,
          );
        return { accepted: true, providerReference: checkout };
      },
    );
  }

  async status(query: StatusQuery, ctx: PaymentCallContext): Promise<PaymentStatus> {
    if (!query.providerReference)
      throw new PaymentNotPossibleError(
        NAME,
        'status',
        'no_provider_reference',
        'mpesa status: a push without CheckoutRequestID cannot be queried',
      );
    const body = { ...this.stamp(), CheckoutRequestID: query.providerReference };
    return this.caller.call(
      {
        operation: 'status',
        method: 'POST',
        path: '/mpesa/stkpushquery/v1/query',
        body,
        idempotent: true,
        token: this.token,
      },
      ctx,
      (answer): PaymentStatus => {
        const errorMessage = wireText(field(answer.body, 'errorMessage')) ?? '';
        // Same code as "wrong credentials", other meaning: the payer has not answered yet.
        if (
          wireText(field(answer.body, 'errorCode')) === '500.001.1001' &&
          /being processed/i.test(errorMessage)
        )
          return { state: 'pending', detail: `500.001.1001 ${errorMessage}` };
        if (answer.status !== 200) throw errorFromAnswer({ provider: NAME, operation: 'status', ...answer });
        const resultCode = wireText(field(answer.body, 'ResultCode'));
        if (resultCode === undefined) return { state: 'pending' };
        return this.result(resultCode, wireText(field(answer.body, 'ResultDesc')));
      },
    );
  }

  async refund(request: RefundRequest, ctx: PaymentCallContext): Promise<RefundStatus> {
    const { initiator, securityCredential } = this.settings;
    if (!initiator || !securityCredential)
      throw new PaymentNotPossibleError(
        NAME,
        'refund',
        'no_initiator',
        'mpesa refund: MPESA_INITIATOR and MPESA_SECURITY_CREDENTIAL are not set',
      );
    if (!request.receipt)
      throw new PaymentNotPossibleError(
        NAME,
        'refund',
        'no_receipt',
        "mpesa refund: a reversal needs the payment's M-Pesa receipt number",
      );
    const body = {
      Initiator: initiator,
      SecurityCredential: securityCredential,
      CommandID: 'TransactionReversal',
      TransactionID: request.receipt,
      Amount: this.amount('refund', request.amount),
      ReceiverParty: this.settings.shortcode,
      RecieverIdentifierType: '11',
      ResultURL: this.settings.refundResultUrl,
      QueueTimeOutURL: this.settings.refundTimeoutUrl,
      Remarks: 'Payment reversal',
      Occasion: promptText(request.refundReference, 100),
    };
    // Never re-sent either: the reversal has no key of its own (R000001 only stops a second full one).
    return this.caller.call(
      {
        operation: 'refund',
        method: 'POST',
        path: '/mpesa/reversal/v1/request',
        body,
        idempotent: false,
        token: this.token,
      },
      ctx,
      (answer): RefundStatus => {
        const code = wireText(field(answer.body, 'ResponseCode'));
        if (answer.status !== 200) throw errorFromAnswer({ provider: NAME, operation: 'refund', ...answer });
        if (code !== undefined && code !== '0') throw notAccepted('refund', code, answer.body);
        const id = wireText(field(answer.body, 'OriginatorConversationID'));
        if (code === undefined || !id)
          throw new MalformedAnswerError(
            'mpesa refund: answer without ResponseCode 0 and OriginatorConversationID (outcome unknown)',
            200,
          );
        return { state: 'pending', providerReference: id };
      },
    );
  }

  parseCallback(callback: InboundCallback): ProviderNotice | null {
    const stk = field(field(callback.body, 'Body'), 'stkCallback');
    if (stk !== undefined) return this.paymentNotice(stk);
    const result = field(callback.body, 'Result');
    if (result === undefined) return null;
    const providerReference = wireText(field(result, 'OriginatorConversationID'));
    if (!providerReference) return null;
    // A QueueTimeOutURL notice is not a failure: the reversal's result is still to come.
    if (callback.kind === 'refund_timeout')
      return { type: 'refund', state: 'pending', providerReference, detail: 'queue timeout' };
    const code = wireText(field(result, 'ResultCode'));
    const desc = wireText(field(result, 'ResultDesc'));
    if (code === undefined) return null;
    const params = byName(field(field(result, 'ResultParameters'), 'ResultParameter'), 'Key');
    const refunded = REVERSAL_REFUNDED.get(code);
    return {
      type: 'refund',
      state: refunded ? 'successful' : 'failed',
      providerReference,
      ...(refunded?.alreadyRefunded && { alreadyRefunded: true }),
      ...(!refunded && { detail: `${code} ${desc ?? ''}`.trim() }),
      ...optional('amount', moneyFromWire(params.get('Amount'), this.settings.currency)),
      ...optional('receipt', wireText(field(result, 'TransactionID'))),
      ...optional('paymentReceipt', wireText(params.get('OriginalTransactionID'))),
    };
  }

  private paymentNotice(stk: unknown): ProviderNotice | null {
    const providerReference = wireText(field(stk, 'CheckoutRequestID'));
    const code = wireText(field(stk, 'ResultCode'));
    if (!providerReference || code === undefined) return null;
    // Items by Name, never by position: some payloads add {"Name":"Balance"} without a Value.
    const items = byName(field(field(stk, 'CallbackMetadata'), 'Item'), 'Name');
    return {
      type: 'payment',
      providerReference,
      ...this.result(code, wireText(field(stk, 'ResultDesc'))),
      ...optional('amount', moneyFromWire(items.get('Amount'), this.settings.currency)),
      ...optional('receipt', wireText(items.get('MpesaReceiptNumber'))),
      ...optional('payerMsisdn', wireText(items.get('PhoneNumber'))),
    };
  }

  private result(code: string, desc: string | undefined): PaymentStatus {
    const known = STK_RESULTS.get(code) ?? { state: 'failed', reason: 'other' };
    return known.state === 'successful'
      ? { state: 'successful' }
      : { state: 'failed', reason: known.reason, detail: `${code} ${desc ?? ''}`.trim() };
  }

  /** The Amount field, after checking the currency and (for Daraja) that there are no cents. */
  private amount(operation: string, money: CollectRequest['amount']): string {
    if (money.currency !== this.settings.currency)
      throw new PaymentNotPossibleError(
        NAME,
        operation,
        'currency_not_supported',
        `mpesa ${operation}: collects ${this.settings.currency}, not ${money.currency}`,
      );
    if (this.settings.amountDecimals === 0 && money.minor % 100 !== 0)
      throw new PaymentNotPossibleError(
        NAME,
        operation,
        'amount_not_whole',
        `mpesa ${operation}: M-Pesa takes whole amounts, not ${amountText(money.minor, 2)}`,
      );
    if (money.minor <= 0)
      throw new PaymentNotPossibleError(
        NAME,
        operation,
        'amount_not_positive',
        `mpesa ${operation}: the amount must be positive`,
      );
    return amountText(money.minor, this.settings.amountDecimals);
  }
}

/** `[{Name, Value}]` (or `[{Key, Value}]`) as a map by name; items without a name are skipped. */
function byName(items: unknown, key: 'Name' | 'Key'): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const list = Array.isArray(items) ? items : items === undefined ? [] : [items];
  for (const item of list) {
    const name = wireText(field(item, key));
    if (name !== undefined) out.set(name, field(item, 'Value'));
  }
  return out;
}

/** A 200 whose ResponseCode is not "0": Daraja did not take the request. */
function notAccepted(operation: string, code: string, body: unknown): ProviderRequestError {
  return new ProviderRequestError({
    provider: NAME,
    operation,
    code: `response_${code}`,
    message: `mpesa ${operation}: not accepted (ResponseCode ${code})`,
    status: 200,
    outcome: 'rejected',
    raw: body,
  });
}
