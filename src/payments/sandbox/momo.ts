/**
 * MTN MoMo Open API, as the sandbox speaks it: the Collection token, request-to-pay keyed by
 * the caller's `X-Reference-Id` (202; 409 on a reused reference), its status, the callback to
 * `X-Callback-Url`, and refunds through the Disbursement product's refund operation with its
 * own status and callback (the reference's §2). Errors are `{code, message}`.
 */
import type { Express, Request, Response } from 'express';
import { parseDecimalAmount, type Money } from '../../vas/money';
import { basicCredentials, isCallbackUrl, withFault, WireError, type Context } from './context';
import type { FaultKind, FaultOperation } from './faults';
import type { Failure, Payment, Refund, RefundRefusal } from './ledger';

export interface MomoSettings {
  /** The API user (a UUID) and its key: Basic credentials of the token calls. */
  apiUserId: string;
  apiKey: string;
  /** `Ocp-Apim-Subscription-Key` of the Collection product (token, request-to-pay, status). */
  collectionKey: string;
  /** `Ocp-Apim-Subscription-Key` of the Disbursement product (its token and refunds). */
  disbursementKey: string;
  /** `X-Target-Environment` every call but the token must carry. */
  targetEnvironment: string;
  /** How callbacks are sent; MTN documents both. */
  callbackMethod: 'PUT' | 'POST';
}

export const MOMO_DEFAULTS: MomoSettings = {
  apiUserId: '0b7a5a51-3c1e-4c52-9a5f-4a2f1f7c1e01',
  apiKey: 'sandbox-momo-api-key',
  collectionKey: 'sandbox-collection-key',
  disbursementKey: 'sandbox-disbursement-key',
  targetEnvironment: 'sandbox',
  callbackMethod: 'PUT',
};

/** `reason` of a FAILED request-to-pay, per failure. */
export const MOMO_REASONS: Record<Failure, string> = {
  declined: 'APPROVAL_REJECTED',
  insufficient_funds: 'NOT_ENOUGH_FUNDS',
  expired: 'EXPIRED',
};

/** `reason` of a FAILED refund, per refusal. */
const REFUND_REASONS: Record<RefundRefusal, string> = {
  not_found: 'RESOURCE_NOT_FOUND',
  not_paid: 'NOT_ALLOWED',
  already_refunded: 'NOT_ALLOWED',
  exceeds_paid: 'NOT_ALLOWED',
  currency_mismatch: 'INVALID_CURRENCY',
};

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const MSISDN = /^\d{9,15}$/;
const MAX_NOTE = 160;

const momoError = (status: number, code: string, message: string): WireError =>
  new WireError(status, { code, message });
const badRequest = (message: string): WireError => momoError(400, 'BAD_REQUEST', message);
const notFound = (): WireError => momoError(404, 'RESOURCE_NOT_FOUND', 'Requested resource was not found.');

function faultFailure(kind: FaultKind): WireError {
  if (kind === 'not_found') return notFound();
  return kind === 'unavailable'
    ? momoError(503, 'SERVICE_UNAVAILABLE', 'Service unavailable (sandbox fault)')
    : momoError(500, 'INTERNAL_PROCESSING_ERROR', 'An internal error occurred (sandbox fault)');
}

/** Minor units as MTN writes amounts: a decimal string without trailing zeros (`5`, `101.5`). */
export function momoAmount(minor: number): string {
  const whole = Math.floor(minor / 100);
  const fraction = String(minor % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

function moneyOf(amount: unknown, currency: unknown): Money {
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) {
    throw momoError(500, 'INVALID_CURRENCY', 'Currency not supported.');
  }
  const parsed = typeof amount === 'string' ? parseDecimalAmount(amount) : null;
  if (!parsed || !parsed.ok || !/^\d+(\.\d{1,2})?$/.test(String(amount))) {
    throw badRequest('amount must be a positive decimal string with at most two decimals');
  }
  return { currency, minor: parsed.minor };
}

function note(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (value === undefined) return '';
  if (typeof value !== 'string' || value.length > MAX_NOTE || value.includes("'")) {
    throw badRequest(`${field} must be text of at most ${MAX_NOTE} characters, without '`);
  }
  return value;
}

export function momoPaymentStatus(p: Payment): object {
  return {
    ...(p.state === 'successful' ? { financialTransactionId: p.receipt } : {}),
    externalId: p.wireData.externalId,
    amount: momoAmount(p.amount.minor),
    currency: p.amount.currency,
    payer: { partyIdType: 'MSISDN', partyId: p.msisdn },
    payerMessage: p.wireData.payerMessage,
    payeeNote: p.wireData.payeeNote,
    status: p.state === 'successful' ? 'SUCCESSFUL' : p.state === 'failed' ? 'FAILED' : 'PENDING',
    ...(p.state === 'failed' && p.failure ? { reason: MOMO_REASONS[p.failure] } : {}),
  };
}

export function momoRefundStatus(r: Refund, payment: Payment | undefined): object {
  return {
    ...(r.state === 'successful' ? { financialTransactionId: r.receipt } : {}),
    externalId: r.wireData.externalId,
    amount: momoAmount(r.amount.minor),
    currency: r.amount.currency,
    payee: { partyIdType: 'MSISDN', partyId: payment?.msisdn ?? '' },
    payerMessage: r.wireData.payerMessage,
    payeeNote: r.wireData.payeeNote,
    status: r.state === 'successful' ? 'SUCCESSFUL' : r.state === 'failed' ? 'FAILED' : 'PENDING',
    ...(r.refusal ? { reason: REFUND_REASONS[r.refusal] } : {}),
  };
}

type Handler = (req: Request, res: Response) => Promise<void>;

export function momoRoutes(app: Express, ctx: Context, settings: MomoSettings): void {
  const route = (path: string, method: 'GET' | 'POST', handler: Handler): void => {
    app.all(path, async (req, res) => {
      if (req.method !== method) throw momoError(405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed`);
      await handler(req, res);
    });
  };

  const requireKey = (req: Request, key: string): void => {
    if (req.get('Ocp-Apim-Subscription-Key') !== key) {
      // API Management's own envelope, not MoMo's.
      throw new WireError(401, {
        statusCode: 401,
        message:
          'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
      });
    }
  };

  const requireCall = (req: Request, key: string): void => {
    requireKey(req, key);
    if (!ctx.tokens.valid(req.get('Authorization'), ['momo'])) {
      throw momoError(401, 'UNAUTHORIZED', 'Access token missing, invalid or expired');
    }
    if (req.get('X-Target-Environment') !== settings.targetEnvironment) {
      throw momoError(403, 'NOT_ALLOWED_TARGET_ENVIRONMENT', 'Access to target environment is forbidden.');
    }
  };

  const reference = (req: Request): string => {
    const value = req.get('X-Reference-Id') ?? '';
    if (!UUID_V4.test(value)) throw badRequest('X-Reference-Id must be a UUID version 4');
    return value.toLowerCase();
  };

  const jsonBody = (req: Request): Record<string, unknown> => {
    const body: unknown = req.body;
    if (!req.is('application/json') || typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw badRequest('a JSON object body is required');
    }
    return body as Record<string, unknown>;
  };

  const callbackUrl = (req: Request): string | null => {
    const value = req.get('X-Callback-Url');
    if (value === undefined || value === '') return null;
    if (!isCallbackUrl(value))
      throw momoError(500, 'INVALID_CALLBACK_URL_HOST', 'Callback URL host is invalid.');
    return value;
  };

  /** A status read by the path's id (any case): MoMo's 404 for none, or for another wire's. */
  const statusRoute = <T extends { wire: string }>(
    path: string,
    key: string,
    operation: FaultOperation,
    read: (id: string) => T | undefined,
    render: (record: T) => object,
  ): void =>
    route(path, 'GET', async (req, res) => {
      requireCall(req, key);
      const id = String(req.params.referenceId).toLowerCase();
      const answer = await withFault(ctx, operation, req, faultFailure, () => read(id));
      if (!answer) return;
      const record = answer.value;
      if (!record || record.wire !== 'momo') throw notFound();
      res.json(render(record));
    });

  const duplicate = (): WireError =>
    momoError(409, 'RESOURCE_ALREADY_EXIST', 'Duplicated reference id. Creation of resource failed.');

  /** What a request-to-pay and a refund check first, in this order: the call, a new reference, the callback, the amount. */
  const creation = (req: Request, key: string, taken: (id: string) => boolean) => {
    requireCall(req, key);
    const id = reference(req);
    if (taken(id)) throw duplicate();
    const url = callbackUrl(req);
    const body = jsonBody(req);
    return { id, url, body, amount: moneyOf(body.amount, body.currency) };
  };

  for (const [product, key] of [
    ['collection', settings.collectionKey],
    ['disbursement', settings.disbursementKey],
  ] as const) {
    route(`/${product}/token/`, 'POST', async (req, res) => {
      requireKey(req, key);
      const credentials = basicCredentials(req.get('Authorization'));
      if (!credentials || credentials[0] !== settings.apiUserId || credentials[1] !== settings.apiKey) {
        throw momoError(401, 'UNAUTHORIZED', 'Invalid API user or key');
      }
      if (Number(req.get('Content-Length') ?? 0) > 0 || req.get('Transfer-Encoding')) {
        throw badRequest('the token request takes no body');
      }
      const answer = await withFault(ctx, 'token', req, faultFailure, () => ctx.tokens.issue('momo'));
      if (!answer) return;
      res.json({
        access_token: answer.value.token,
        token_type: 'access_token',
        expires_in: answer.value.expiresIn,
      });
    });
  }

  route('/collection/v1_0/requesttopay', 'POST', async (req, res) => {
    const { id, url, body, amount } = creation(req, settings.collectionKey, (id) => ctx.ledger.has(id));
    if (typeof body.externalId !== 'string') throw badRequest('externalId is required');
    const payer = body.payer as { partyIdType?: unknown; partyId?: unknown } | undefined;
    if (payer?.partyIdType !== 'MSISDN' || typeof payer.partyId !== 'string' || !MSISDN.test(payer.partyId)) {
      throw badRequest('payer must be {"partyIdType": "MSISDN", "partyId": "<digits>"}');
    }
    const payerMessage = note(body, 'payerMessage');
    const payeeNote = note(body, 'payeeNote');
    const answer = await withFault(ctx, 'collect', req, faultFailure, () => {
      if (ctx.ledger.has(id)) throw duplicate(); // two concurrent requests with one reference
      return ctx.payments.collect({
        id,
        wire: 'momo',
        msisdn: payer.partyId as string,
        amount,
        payee: payeeNote || payerMessage || 'the merchant',
        callbackUrl: url,
        wireData: { externalId: body.externalId as string, payerMessage, payeeNote },
      });
    });
    if (!answer) return;
    res.status(202).end();
  });

  statusRoute(
    '/collection/v1_0/requesttopay/:referenceId',
    settings.collectionKey,
    'status',
    (id) => ctx.ledger.payment(id),
    momoPaymentStatus,
  );

  for (const version of ['v1_0', 'v2_0']) {
    route(`/disbursement/${version}/refund`, 'POST', async (req, res) => {
      const { id, url, body, amount } = creation(req, settings.disbursementKey, (id) =>
        Boolean(ctx.ledger.refund(id)),
      );
      const toRefund = body.referenceIdToRefund;
      if (typeof toRefund !== 'string' || !UUID_V4.test(toRefund)) {
        throw badRequest('referenceIdToRefund must be the UUID of a request-to-pay');
      }
      const original = ctx.ledger.payment(toRefund.toLowerCase());
      const wireData = {
        externalId: typeof body.externalId === 'string' ? body.externalId : '',
        payerMessage: note(body, 'payerMessage'),
        payeeNote: note(body, 'payeeNote'),
      };
      const answer = await withFault(ctx, 'refund', req, faultFailure, () => {
        if (ctx.ledger.refund(id)) throw duplicate();
        return ctx.payments.refund({
          id,
          wire: 'momo',
          payment: original?.wire === 'momo' ? original : undefined,
          amount,
          callbackUrl: url,
          wireData,
        });
      });
      if (!answer) return;
      res.status(202).end();
    });

    statusRoute(
      `/disbursement/${version}/refund/:referenceId`,
      settings.disbursementKey,
      'refund_status',
      (id) => ctx.ledger.refund(id),
      (refund) =>
        momoRefundStatus(refund, refund.paymentId ? ctx.ledger.payment(refund.paymentId) : undefined),
    );
  }
}

/** Body-parser failures and unknown paths under MoMo's prefixes, in MoMo's envelope. */
export function momoFallback(raw: unknown): WireError {
  const type = (raw as { type?: string } | null)?.type;
  if (typeof type === 'string' && type.startsWith('entity.')) return badRequest('malformed JSON body');
  return notFound();
}

export const isMomoPath = (path: string): boolean =>
  path.startsWith('/collection/') || path.startsWith('/disbursement/');
