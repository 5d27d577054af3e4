/**
 * Safaricom M-Pesa Daraja, as the sandbox speaks it: OAuth client credentials, the STK push
 * with its synchronous answer and its callback, the STK push query, and the reversal with its
 * result callback. Field names, codes and descriptions are Daraja's (the reference's §1).
 * Errors are `{requestId, errorCode, errorMessage}` with the HTTP status of the code's first
 * three digits (`500.001.1001` → 500).
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import { parseDecimalAmount, type Money } from '../../vas/money';
import { basicCredentials, isCallbackUrl, withFault, WireError, type Context } from './context';
import type { FaultKind } from './faults';
import type { Failure, Payment, Refund } from './ledger';
import { localInstant } from '../../i18n/local-time';
import { darajaPull } from './statement';

/** `2026-12-01 08:36:00` (the hour may have one digit) in East Africa Time, as the Pull API takes it. */
function pullTime(value: unknown): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{1,2}):(\d{2}):(\d{2})$/.exec(String(value ?? '').trim());
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number);
  return localInstant({ year, month, day, hour, minute, second }, 'Africa/Nairobi');
}

export interface DarajaSettings {
  consumerKey: string;
  consumerSecret: string;
  /** BusinessShortCode (and ReceiverParty of a reversal). */
  shortcode: string;
  passkey: string;
  /** The currency Daraja's bare `Amount` is in (real Daraja: KES). */
  currency: string;
  /** Real Daraja takes whole units only; false lets `Amount` carry up to two decimals. */
  wholeUnits: boolean;
}

/** The published Daraja sandbox shortcode and passkey, and this sandbox's consumer key pair. */
export const DARAJA_DEFAULTS: DarajaSettings = {
  consumerKey: 'sandbox-consumer-key',
  consumerSecret: 'sandbox-consumer-secret',
  shortcode: '174379',
  passkey: 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919',
  currency: 'KES',
  wholeUnits: true,
};

/** Callback and query `ResultCode` with its `ResultDesc`, per outcome. */
export const DARAJA_RESULTS: Record<'paid' | Failure, { code: number; desc: string }> = {
  paid: { code: 0, desc: 'The service request is processed successfully.' },
  declined: { code: 1032, desc: 'Request cancelled by user.' },
  insufficient_funds: { code: 1, desc: 'The balance is insufficient for the transaction.' },
  expired: { code: 1019, desc: 'Transaction has expired.' },
};

const MIN_MINOR = 100;
const MAX_MINOR = 250_000 * 100;
const MSISDN = /^\d{9,15}$/;
const TIMESTAMP = /^\d{14}$/;

function darajaError(code: string, message: string): WireError {
  return new WireError(Number(code.slice(0, 3)), {
    requestId: `${randomInt(10_000, 99_999)}-${randomInt(1_000_000, 99_999_999)}-1`,
    errorCode: code,
    errorMessage: message,
  });
}

const invalid = (field: string): WireError => darajaError('400.002.02', `Bad Request - Invalid ${field}`);

function faultFailure(kind: FaultKind): WireError {
  return kind === 'unavailable'
    ? darajaError('500.003.02', 'System is busy. Please try again in few minutes.')
    : darajaError('500.003.1001', 'Internal Server Error');
}

/** `YYYYMMDDHHmmss` in Nairobi time (UTC+3), Daraja's clock. */
function nairobiStamp(at: Date): string {
  return new Date(at.getTime() + 3 * 3600_000).toISOString().replace(/\D/g, '').slice(0, 14);
}

/** Daraja `Amount` (number or numeric string) in `settings.currency`; null when not acceptable. */
function amountOf(value: unknown, settings: DarajaSettings): Money | null {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!(settings.wholeUnits ? /^\d+$/ : /^\d+(\.\d{1,2})?$/).test(text)) return null;
  const parsed = parseDecimalAmount(text);
  if (!parsed.ok || parsed.minor < MIN_MINOR || parsed.minor > MAX_MINOR) return null;
  return { currency: settings.currency, minor: parsed.minor };
}

/** Minor units as Daraja's JSON number (1.00 → 1; division by 100 prints the exact decimal). */
function amountNumber(minor: number): number {
  return minor / 100;
}

export function darajaPaymentCallback(p: Payment): object {
  const result = DARAJA_RESULTS[p.state === 'successful' ? 'paid' : (p.failure ?? 'expired')];
  const stkCallback: Record<string, unknown> = {
    MerchantRequestID: p.wireData.merchantRequestId,
    CheckoutRequestID: p.id,
    ResultCode: result.code,
    ResultDesc: result.desc,
  };
  if (p.state === 'successful') {
    stkCallback.CallbackMetadata = {
      Item: [
        { Name: 'Amount', Value: amountNumber(p.amount.minor) },
        { Name: 'MpesaReceiptNumber', Value: p.receipt },
        { Name: 'TransactionDate', Value: Number(nairobiStamp(p.completedAt ?? new Date())) },
        { Name: 'PhoneNumber', Value: Number(p.msisdn) },
      ],
    };
  }
  return { Body: { stkCallback } };
}

/** The reversal's result, POSTed to its `ResultURL`. */
export function darajaReversalResult(r: Refund, original: Payment | undefined): object {
  const base = {
    ResultType: 0,
    OriginatorConversationID: r.id,
    ConversationID: r.wireData.conversationId,
    TransactionID: r.receipt ?? r.wireData.attemptId,
    ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: r.wireData.queueTimeOutUrl } },
  };
  if (r.state === 'successful') {
    return {
      Result: {
        ...base,
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        ResultParameters: {
          ResultParameter: [
            { Key: 'Amount', Value: amountNumber(r.amount.minor) },
            { Key: 'TransCompletedTime', Value: Number(nairobiStamp(r.completedAt ?? new Date())) },
            { Key: 'OriginalTransactionID', Value: original?.receipt ?? r.wireData.transactionId },
            { Key: 'Charge', Value: 0 },
          ],
        },
      },
    };
  }
  const already = r.refusal === 'already_refunded';
  return {
    Result: {
      ...base,
      ResultCode: already ? 'R000001' : 'R000002',
      ResultDesc: already
        ? 'The transaction has already been reversed.'
        : 'The OriginalTransactionID is invalid.',
    },
  };
}

type Handler = (req: Request, res: Response) => Promise<void>;

export function darajaRoutes(app: Express, ctx: Context, settings: DarajaSettings): void {
  const route = (path: string, method: 'GET' | 'POST', handler: Handler): void => {
    app.all(path, async (req, res) => {
      if (req.method !== method) throw darajaError('405.001', 'Method Not Allowed');
      await handler(req, res);
    });
  };

  const requireBearer = (req: Request): void => {
    if (!ctx.tokens.valid(req.get('Authorization'), ['daraja'])) {
      throw darajaError('404.001.03', 'Invalid Access Token');
    }
  };

  /** JSON body (a wrong Content-Type surfaces as Daraja's famous misleading message). */
  const jsonBody = (req: Request): Record<string, unknown> => {
    if (!req.is('application/json')) throw invalid('BusinessShortCode');
    const body: unknown = req.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('JSON');
    return body as Record<string, unknown>;
  };

  /** BusinessShortCode, Timestamp and Password = base64(shortcode + passkey + timestamp). */
  const checkPassword = (body: Record<string, unknown>): void => {
    if (String(body.BusinessShortCode ?? '') !== settings.shortcode) throw invalid('BusinessShortCode');
    const timestamp = String(body.Timestamp ?? '');
    if (!TIMESTAMP.test(timestamp)) throw invalid('Timestamp');
    const expected = Buffer.from(settings.shortcode + settings.passkey + timestamp).toString('base64');
    if (body.Password !== expected) throw darajaError('500.001.1001', 'Wrong credentials');
  };

  route('/oauth/v1/generate', 'GET', async (req, res) => {
    const credentials = basicCredentials(req.get('Authorization'));
    if (!credentials) throw darajaError('400.008.01', 'Invalid Authentication passed');
    if (req.query.grant_type !== 'client_credentials')
      throw darajaError('400.008.02', 'Invalid grant type passed');
    if (credentials[0] !== settings.consumerKey || credentials[1] !== settings.consumerSecret) {
      throw darajaError('400.008.01', 'Invalid Authentication passed');
    }
    const answer = await withFault(ctx, 'token', req, faultFailure, () => ctx.tokens.issue('daraja'));
    if (!answer) return;
    // Daraja's docs show a number; the live API sends a string. Clients must read both.
    res.json({ access_token: answer.value.token, expires_in: String(answer.value.expiresIn - 1) });
  });

  route('/mpesa/stkpush/v1/processrequest', 'POST', async (req, res) => {
    requireBearer(req);
    const body = jsonBody(req);
    checkPassword(body);
    if (
      body.TransactionType !== 'CustomerPayBillOnline' &&
      body.TransactionType !== 'CustomerBuyGoodsOnline'
    ) {
      throw invalid('TransactionType');
    }
    const amount = amountOf(body.Amount, settings);
    if (!amount) throw invalid('Amount');
    if (!MSISDN.test(String(body.PartyA ?? ''))) throw invalid('PartyA');
    if (!/^\d{5,7}$/.test(String(body.PartyB ?? ''))) throw invalid('PartyB');
    const phone = String(body.PhoneNumber ?? '');
    if (!MSISDN.test(phone)) throw invalid('PhoneNumber');
    if (!isCallbackUrl(body.CallBackURL)) throw invalid('CallBackURL');
    const reference = body.AccountReference;
    if (typeof reference !== 'string' || reference.length < 1 || reference.length > 12) {
      throw invalid('AccountReference');
    }
    const desc = body.TransactionDesc;
    if (desc !== undefined && (typeof desc !== 'string' || desc.length > 13))
      throw invalid('TransactionDesc');
    const callbackUrl = body.CallBackURL;

    const answer = await withFault(ctx, 'collect', req, faultFailure, () => {
      const now = new Date();
      const payment = ctx.payments.collect({
        id: `ws_CO_${nairobiStamp(now)}${randomInt(100_000_000, 999_999_999)}`,
        wire: 'daraja',
        msisdn: phone,
        amount,
        payee: reference,
        callbackUrl,
        wireData: {
          merchantRequestId: `${randomInt(10_000, 99_999)}-${randomInt(10_000_000, 99_999_999)}-1`,
          accountReference: reference,
          transactionDesc: typeof desc === 'string' ? desc : '',
        },
      });
      return payment;
    });
    if (!answer) return;
    res.json({
      MerchantRequestID: answer.value.wireData.merchantRequestId,
      CheckoutRequestID: answer.value.id,
      ResponseCode: '0',
      ResponseDescription: 'Success. Request accepted for processing',
      CustomerMessage: 'Success. Request accepted for processing',
    });
  });

  route('/mpesa/stkpushquery/v1/query', 'POST', async (req, res) => {
    requireBearer(req);
    const body = jsonBody(req);
    checkPassword(body);
    const id = String(body.CheckoutRequestID ?? '');
    const answer = await withFault(ctx, 'status', req, faultFailure, () => ctx.ledger.payment(id));
    if (!answer) return;
    const payment = answer.value;
    if (!payment || payment.wire !== 'daraja') throw invalid('CheckoutRequestID');
    if (payment.state === 'pending') throw darajaError('500.001.1001', 'The transaction is being processed');
    const result = DARAJA_RESULTS[payment.state === 'successful' ? 'paid' : (payment.failure ?? 'expired')];
    res.json({
      ResponseCode: '0',
      ResponseDescription: 'The service request has been accepted successfully',
      MerchantRequestID: payment.wireData.merchantRequestId,
      CheckoutRequestID: payment.id,
      // A string here, a number in the callback: as Daraja does.
      ResultCode: String(result.code),
      ResultDesc: result.desc,
    });
  });

  // Pull Transactions: the C2B money in of a window (EAT), a page from OffSetValue.
  route('/pulltransactions/v1/query', 'POST', async (req, res) => {
    requireBearer(req);
    const body = jsonBody(req);
    if (String(body.ShortCode ?? '') !== settings.shortcode) throw invalid('ShortCode');
    const from = pullTime(body.StartDate);
    if (!from) throw invalid('StartDate');
    const to = pullTime(body.EndDate);
    if (!to || to < from) throw invalid('EndDate');
    const offset = Number(body.OffSetValue ?? '0');
    if (!Number.isSafeInteger(offset) || offset < 0) throw invalid('OffSetValue');
    res.json(darajaPull(ctx.ledger, { from, to, offset, organisation: 'Gateway Payment Sandbox' }));
  });

  route('/mpesa/reversal/v1/request', 'POST', async (req, res) => {
    requireBearer(req);
    const body = jsonBody(req);
    if (typeof body.Initiator !== 'string' || body.Initiator === '') throw invalid('Initiator');
    if (typeof body.SecurityCredential !== 'string' || body.SecurityCredential === '') {
      throw invalid('SecurityCredential');
    }
    if (body.CommandID !== 'TransactionReversal') throw invalid('CommandID');
    const transactionId = body.TransactionID;
    if (typeof transactionId !== 'string' || transactionId === '') throw invalid('TransactionID');
    const amount = amountOf(body.Amount, settings);
    if (!amount) throw invalid('Amount');
    if (String(body.ReceiverParty ?? '') !== settings.shortcode) throw invalid('ReceiverParty');
    // Daraja's own spelling; one library sends the correct one, accepted too.
    if (String(body.RecieverIdentifierType ?? body.ReceiverIdentifierType ?? '') !== '11') {
      throw invalid('RecieverIdentifierType');
    }
    if (!isCallbackUrl(body.ResultURL)) throw invalid('ResultURL');
    if (!isCallbackUrl(body.QueueTimeOutURL)) throw invalid('QueueTimeOutURL');
    const remarks = body.Remarks;
    if (typeof remarks !== 'string' || remarks.length < 2 || remarks.length > 100) throw invalid('Remarks');
    const original = ctx.ledger.paymentByReceipt('daraja', transactionId);
    // Daraja has no code for "more than was paid": refuse it as an invalid field, at once.
    if (original && original.state === 'successful' && amount.minor > original.amount.minor) {
      throw invalid('Amount');
    }
    const resultUrl = body.ResultURL;
    const answer = await withFault(ctx, 'refund', req, faultFailure, () =>
      ctx.payments.refund({
        id: `${randomBytes(2).toString('hex')}-${randomBytes(2).toString('hex')}-${randomBytes(2).toString('hex')}-${randomBytes(9).toString('hex')}`,
        wire: 'daraja',
        payment: original,
        amount,
        callbackUrl: resultUrl,
        wireData: {
          conversationId: `AG_${nairobiStamp(new Date()).slice(0, 8)}_${randomBytes(10).toString('hex')}`,
          transactionId,
          queueTimeOutUrl: String(body.QueueTimeOutURL),
          attemptId: `R${randomBytes(5).toString('hex').toUpperCase().slice(0, 9)}`,
        },
      }),
    );
    if (!answer) return;
    res.json({
      OriginatorConversationID: answer.value.id,
      ConversationID: answer.value.wireData.conversationId,
      ResponseCode: '0',
      ResponseDescription: 'Accept the service request successfully.',
    });
  });
}

/** Body-parser failures and unknown paths under Daraja's prefixes, in Daraja's envelope. */
export function darajaFallback(raw: unknown): WireError {
  const type = (raw as { type?: string } | null)?.type;
  if (typeof type === 'string' && type.startsWith('entity.')) return invalid('JSON');
  return darajaError('404.001.01', 'Resource not found');
}

export const isDarajaPath = (path: string): boolean =>
  path.startsWith('/mpesa/') || path.startsWith('/oauth/') || path.startsWith('/pulltransactions/');
