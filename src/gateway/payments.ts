/**
 * The payment step wired into the money path: the provider's adapter, the payment lifecycle on
 * a queue of its own, the hooks that tell the purchase side what the buyer's money did, and the
 * callback routes. A subscriber's purchase is created `paymentRequired` and confirmed only once
 * its payment is successful (`onPaid`); an agent's sale never comes here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConnectionOptions } from 'bullmq';
import type { PaymentLifecycleSettings } from '../payments/lifecycle/machine';
import type { Locales } from '../i18n';
import { callbackCheck } from '../http/callback-guard';
import { BodyError, queryOf, readText, sendText } from '../http/lean-request';
import { componentLogger, maskMsisdn, withLogContext } from '../observability/logger';
import { requestIdOf } from '../observability/request-id';
import type { Metrics } from '../observability/metrics';
import { PaymentLifecycle } from '../payments/lifecycle/runner';
import { paymentLifecycleSettings, type PaymentOutcomeHooks } from '../payments/lifecycle/settings';
import type { CallbackKind, PaymentProvider } from '../payments/port';
import { createPaymentProvider, PAYMENT_CALLBACK_PATHS } from '../payments/providers';
import { PAYMENT_QUEUE_NAME, type PaymentJob, type PaymentJobQueue } from '../payments/queue';
import type { PaymentSetup } from '../payments/setup';
import { embeddedPaymentSettings } from '../payments/setup';
import type { NoticeSpool } from '../payments/spool';
import { SqlPaymentStore } from '../payments/store/sql';
import type { PaymentRecord } from '../payments/store/types';
import type { RunningPurchaseDesk } from '../purchases/desk';
import type { PurchaseSettlement } from '../purchases/hand-over';
import type { CareContact } from '../purchases/care/settings';
import { composeRefundSms, type PaidWith } from '../purchases/notify/compose';
import { BullJobQueue, InProcessJobQueue } from '../queue';
import type { PurchaseRecord } from '../purchases/types';
import type { Database, Queryable } from '../records/database';
import type { Money } from '../vas/money';
import { messageId } from '../messaging/message';
import type { SmsQueue } from '../messaging/queue';
import { instrumentPaymentStore } from './instrument';

const log = componentLogger('payments');

/** The adapter for a setup: its own settings, or the embedded sandbox's once both URLs are known. */
export function paymentProviderFor(
  setup: PaymentSetup,
  urls: { sandboxUrl?: string; gatewayUrl: string },
): PaymentProvider | null {
  if (setup.provider === 'none') return null;
  if (!setup.embedded) return setup.settings ? createPaymentProvider(setup.settings) : null;
  if (!urls.sandboxUrl) throw new Error('the embedded payment sandbox is not running');
  return createPaymentProvider(
    embeddedPaymentSettings(setup, { sandboxUrl: urls.sandboxUrl, gatewayUrl: urls.gatewayUrl }),
  );
}

/** The records and queue of the payment step, made before the purchase desk that settles into it. */
export interface PaymentParts {
  store: SqlPaymentStore;
  queue: PaymentJobQueue;
  /**
   * The payment side of a settled purchase: a paid purchase that failed gets its refund looked at
   * (a job: the refund is asked only when `refundIfDue` allows it). Idempotent per purchase.
   */
  settlement: PurchaseSettlement;
  /** The buyer's payment for a purchase, for its SMS (what was paid, or asked); `on`: in a transaction. */
  paidWith(purchaseId: string, on?: Queryable): Promise<PaidWith | null>;
}

/**
 * The buyer's payment for a purchase, for its SMS, read from the records: the same in every
 * process, whether or not it runs the payment step (a CLI resend composes the same text).
 */
export function paidWithReader(store: Pick<SqlPaymentStore, 'getByPurchase'>) {
  return async (purchaseId: string, on?: Queryable): Promise<PaidWith | null> => {
    const payment = await store.getByPurchase(purchaseId, on);
    if (!payment) return null;
    const collected = payment.state === 'successful';
    return {
      amount: (collected && payment.paidAmount) || payment.amount,
      collected,
      receipt: payment.receipt,
    };
  };
}

export function paymentParts(options: {
  records: Database;
  bull?: { connection: ConnectionOptions; prefix: string };
  metrics?: Metrics;
}): PaymentParts {
  const raw = new SqlPaymentStore({ db: options.records });
  const store = options.metrics ? instrumentPaymentStore(raw, options.metrics) : raw;
  options.metrics?.watchPaymentStates(() => raw.countByState());
  const queue: PaymentJobQueue = options.bull
    ? new BullJobQueue<PaymentJob>({ name: PAYMENT_QUEUE_NAME, ...options.bull })
    : new InProcessJobQueue<PaymentJob>();
  return {
    store,
    queue,
    settlement: {
      async settled(record) {
        if (!record.intent.paymentRequired || record.state !== 'failed') return;
        // Nothing was collected: not paid, or never asked.
        if (record.failure?.code === 'payment_failed' || record.failure?.code === 'payment_not_started')
          return;
        // Attempt 1: the lifecycle's own re-check of a verdict queues attempt 0.
        await queue.enqueue({ kind: 'refund-due', purchaseId: record.id, attempt: 1 });
      },
    },
    paidWith: paidWithReader(raw),
  };
}

/** The payment step of a running money path. */
export interface PaymentPath {
  provider: PaymentProvider;
  lifecycle: PaymentLifecycle;
  store: SqlPaymentStore;
  /**
   * Write the payment row of a purchase created `paymentRequired`, with the purchase's own
   * statement (`tx`: the desk's `alongside`), so neither exists without the other: null when the
   * purchase is not written (its key taken, the spending rules' refusal).
   */
  writeRequest(candidate: PurchaseRecord, tx: Queryable, amount?: Money): Promise<PaymentRecord | null>;
  /**
   * Ask the buyer to pay (the PIN prompt) for a payment `writeRequest` wrote, once its transaction
   * committed. Resolves once the provider answered the collect; never throws (a failure ends the
   * purchase unpaid through the lifecycle, or the sweep picks it up).
   */
  collect(payment: PaymentRecord): Promise<void>;
  /** Resume what a crash or a lost job left (part of the purchases' sweep). */
  sweep(): Promise<void>;
}

export function startPaymentLifecycle(options: {
  provider: PaymentProvider;
  parts: PaymentParts;
  desk: RunningPurchaseDesk;
  sms: SmsQueue;
  senderId?: string;
  locales: Locales;
  /** Overrides of the lifecycle's timings (tests shorten the polls). */
  settings?: Partial<PaymentLifecycleSettings>;
  /** An agent's own top-up is decided (src/agents/top-ups.ts). */
  onTopUp?: PaymentOutcomeHooks['onTopUp'];
  /** `CARE_PHONE`/`CARE_HOURS`: the refund SMS ends with them, like every failure SMS. */
  care?: CareContact | null;
  /** Where callbacks and push answers wait while the records are away (src/payments/spool.ts). */
  spool?: NoticeSpool;
}): PaymentPath {
  const { provider, parts, desk, locales } = options;
  const now = () => new Date().toISOString();
  const lifecycle = new PaymentLifecycle({
    payments: parts.store,
    purchases: desk.store,
    provider,
    queue: parts.queue,
    settings: paymentLifecycleSettings(provider, options.settings),
    spool: options.spool,
    onPaid: (purchaseId, _payment, seen, options) => desk.confirmPaid(purchaseId, seen, options),
    async onUnpaid(purchaseId, reason) {
      await desk.lifecycle.paymentOutcome(purchaseId, { type: 'PAYMENT_FAILED', reason, at: now() });
    },
    async onNotStarted(purchaseId) {
      await desk.lifecycle.paymentOutcome(purchaseId, {
        type: 'PAYMENT_FAILED',
        code: 'payment_not_started',
        reason: 'not_started',
        at: now(),
      });
    },
    async onRefunded(purchaseId, payment) {
      const purchase = await desk.store.get(purchaseId);
      if (!purchase || !payment.refund) return;
      const sms = composeRefundSms(purchase, payment.refund, locales, options.care);
      // One SMS per refund: the id de-duplicates a hook told twice.
      await options.sms.enqueue({
        id: messageId(purchaseId, `refunded:${payment.refund.id}`, sms.to),
        kind: sms.kind,
        purchaseId,
        to: sms.to,
        message: sms.message,
        ...(options.senderId !== undefined && { from: options.senderId }),
      });
    },
    async onRefundNeedsCare(purchaseId, payment) {
      await desk.lifecycle.paymentOutcome(purchaseId, {
        type: 'REFUND_STUCK',
        detail: refundCareNote(payment),
        at: now(),
      });
    },
    ...(options.onTopUp && { onTopUp: options.onTopUp }),
  });
  return {
    provider,
    lifecycle,
    store: parts.store,
    writeRequest(candidate, tx, amount) {
      return lifecycle.writeRequestWith(candidate, tx, amount ? { amount } : {});
    },
    async collect(payment) {
      try {
        await lifecycle.sendRequested(payment);
      } catch (error) {
        // The row is committed before the collect: the sweep resumes it. Nothing to tell the caller.
        log.error('payment request failed', {
          purchaseId: payment.purchaseId,
          payer: maskMsisdn(payment.payerMsisdn),
          error,
        });
      }
    },
    async sweep() {
      await lifecycle.resumeStuck();
    },
  };
}

/** What an operator needs to give the money back by hand. */
function refundCareNote(payment: PaymentRecord): string {
  return (
    `refund ${payment.state} (${payment.provider}): the buyer paid ${payment.amount.currency} ` +
    `${(payment.amount.minor / 100).toFixed(2)}, receipt ${payment.receipt ?? 'none'}, payment ${payment.id}` +
    (payment.refund?.detail ? `; provider said: ${payment.refund.detail}` : '')
  );
}

/** A request the payment callback routes answer; `false` means not theirs. */
export type PaymentCallbackHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Largest payment callback body accepted (Daraja's and MoMo's are a few hundred bytes). */
const PAYMENT_CALLBACK_BODY_LIMIT = 64 * 1024;

function answerJson(res: ServerResponse, status: number, body: unknown, requestId: string): void {
  sendText(res, status, 'application/json', JSON.stringify(body), { 'X-Request-Id': requestId });
}

/**
 * `POST`/`PUT /payments/callback/{payment,refund,refund-timeout}`, on `node:http` ahead of express
 * as the USSD hops are: a payment brings a callback per sale, and express's router and wrappers
 * cost more than the rest of its HTTP work. Matching follows express's defaults (case-insensitive,
 * an optional trailing slash). The guard first (the secret in the URL, `?key=`, or header
 * `X-Callback-Key`, and the allow-list), then the adapter reads the exact body (a signing provider checks it), then the
 * lifecycle keeps and applies it — idempotent, so a provider's retry or a duplicate changes
 * nothing. Answers 200 whatever the outcome, 400 for a body that is no result, and only once the
 * notice is durable (the records, else the spool).
 */
export function paymentCallbacks(
  payments: Pick<PaymentPath, 'provider' | 'lifecycle'>,
  guard: PaymentSetup['callback'],
  clientIp: (req: IncomingMessage) => string | undefined = (req) => req.socket.remoteAddress,
): PaymentCallbackHandler {
  const check = callbackCheck({
    what: 'payment callback',
    secret: guard.secret,
    allowedIps: guard.allowedIps,
  });
  const kinds = new Map<string, CallbackKind>();
  for (const [kind, path] of Object.entries(PAYMENT_CALLBACK_PATHS) as [CallbackKind, string][])
    kinds.set(path.toLowerCase(), kind);

  async function serve(req: IncomingMessage, res: ServerResponse, kind: CallbackKind, path: string) {
    const requestId = requestIdOf(req);
    const query = queryOf(req.url!);
    const header = req.headers['x-callback-key'];
    const rejection = check({
      ip: clientIp(req),
      key: typeof header === 'string' ? header : typeof query.key === 'string' ? query.key : undefined,
      path,
    });
    if (rejection) {
      req.resume();
      sendText(res, rejection.status, 'text/plain', rejection.body, { 'X-Request-Id': requestId });
      return;
    }
    const rawBody = await readText(req, PAYMENT_CALLBACK_BODY_LIMIT);
    await withLogContext({ requestId }, () => take(res, kind, rawBody, req.headers, requestId));
  }

  async function take(
    res: ServerResponse,
    kind: CallbackKind,
    rawBody: string,
    given: IncomingMessage['headers'],
    requestId: string,
  ): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawBody);
    } catch {
      return answerJson(res, 400, { error: 'the body is not JSON' }, requestId);
    }
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(given))
      headers[name] = Array.isArray(value) ? value.join(',') : value;
    let notice;
    try {
      notice = payments.provider.parseCallback({ kind, body: parsed, rawBody, headers });
    } catch (error) {
      log.warn('payment callback refused by the adapter', { kind, error: (error as Error).message });
      return answerJson(res, 401, { error: 'unauthorised' }, requestId);
    }
    if (!notice) return answerJson(res, 400, { error: 'not a result' }, requestId);
    try {
      // Kept in the records, or in the spool while they are away: acknowledged only once durable.
      const { outcome } = await payments.lifecycle.takeCallback(notice);
      answerJson(res, 200, { ResultCode: 0, ResultDesc: 'Accepted', outcome }, requestId);
    } catch (error) {
      // Kept nowhere: the provider may send it again; the status query finds the result otherwise.
      log.error('payment callback could not be recorded', { kind, error });
      answerJson(res, 500, { error: 'not recorded' }, requestId);
    }
  }

  return (req, res) => {
    if (req.method !== 'POST' && req.method !== 'PUT') return false;
    const at = req.url!.indexOf('?');
    const path = at === -1 ? req.url! : req.url!.slice(0, at);
    const bare = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const kind = kinds.get(bare.toLowerCase());
    if (!kind) return false;
    serve(req, res, kind, path).catch((error: unknown) => {
      if (res.headersSent) return;
      if (error instanceof BodyError) return sendText(res, error.status, 'text/plain', error.message);
      log.error('payment callback failed', { kind, error });
      sendText(res, 500, 'text/plain', 'internal error');
    });
    return true;
  };
}
