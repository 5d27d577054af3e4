/**
 * Metric decorators: each wraps one port (purchase service, purchase store, SMS sender, hop
 * engine), delegates every call and records what it saw into {@link Metrics}. They live in the
 * composition root so that `observability/` knows no domain type and the domain knows no metric.
 */
import { performance } from 'node:perf_hooks';
import type { OutboundSms, SendOutcome, SmsSender } from '../messaging/sender';
import type { UssdHop, UssdReply } from '../ussd/types';
import type { Metrics } from '../observability/metrics';
import type { SqlPaymentStore } from '../payments/store/sql';
import { REFUND_CARE_STATES, type PaymentRecordState } from '../payments/store/types';
import type { PurchaseStore } from '../purchases/store/store';
import type { PurchaseRecord, PurchaseState } from '../purchases/types';
import type { HopEngine } from '../ussd/engine/engine';
import { outcomeOf, PurchaseServiceError } from '../vas/errors';
import type { CallContext, PurchaseService } from '../vas/port';

/** The `outcome` label of a failed purchase-service call: its code (bounded) or transport outcome. */
export function serviceCallOutcome(metrics: Metrics, error: unknown): string {
  return error instanceof PurchaseServiceError ? metrics.errorCodeLabel(error.code) : outcomeOf(error);
}

/** Times one purchase-service call; rethrows whatever the call threw. */
async function timed<T>(metrics: Metrics, operation: string, call: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await call();
    metrics.vasCallDuration.observe({ operation, outcome: 'ok' }, (performance.now() - started) / 1000);
    return result;
  } catch (error) {
    const outcome = serviceCallOutcome(metrics, error);
    metrics.vasCallDuration.observe({ operation, outcome }, (performance.now() - started) / 1000);
    throw error;
  }
}

/** `vas_call_duration_seconds{operation, outcome}` around every call of the purchase service. */
export function instrumentPurchaseService(service: PurchaseService, metrics: Metrics): PurchaseService {
  return {
    listProducts: (ctx: CallContext) => timed(metrics, 'list_products', () => service.listProducts(ctx)),
    listAccounts: (ctx) => timed(metrics, 'list_accounts', () => service.listAccounts(ctx)),
    getAccount: (id, ctx) => timed(metrics, 'get_account', () => service.getAccount(id, ctx)),
    validate: (request, ctx) => timed(metrics, 'validate', () => service.validate(request, ctx)),
    confirm: (request, ctx) => timed(metrics, 'confirm', () => service.confirm(request, ctx)),
    retry: (request, ctx) => timed(metrics, 'retry', () => service.retry(request, ctx)),
  };
}

/** `ussd_hops_total{aggregator, end}` and `ussd_hop_duration_seconds{aggregator}` per hop. */
export function instrumentHopEngine(engine: HopEngine, metrics: Metrics): HopEngine {
  return {
    async handleHop(hop: UssdHop): Promise<UssdReply> {
      const started = performance.now();
      const counted = metrics.hopSeries(hop.aggregator);
      let reply: UssdReply;
      try {
        reply = await engine.handleHop(hop);
      } catch (error) {
        // The engine promises never to throw; if it does, the hop still shows up.
        counted.failed.inc();
        counted.duration.observe((performance.now() - started) / 1000);
        throw error;
      }
      (reply.end ? counted.ended : counted.continued).inc();
      counted.duration.observe((performance.now() - started) / 1000);
      return reply;
    },
    endSession: (end) => engine.endSession(end),
    sessionActive: (ref) => engine.sessionActive(ref),
  };
}

/**
 * `purchases_created_total{product}` on creates that wrote a record, and
 * `purchase_transitions_total{from, to}` on compare-and-sets that wrote a new state. Conflicts,
 * idempotent repeats and same-state writes (e.g. noting that a purchase was notified) are not
 * counted. `from` is the state the caller expected; when it allowed several, they are joined
 * with `|` (call sites pass fixed lists, so the label stays bounded).
 */
export function instrumentPurchaseStore(store: PurchaseStore, metrics: Metrics): PurchaseStore {
  const fromLabel = (from: readonly PurchaseState[]): string =>
    from.length === 1 ? from[0] : [...from].sort().join('|');
  const counted =
    (writer: Pick<PurchaseStore, 'transition'>): PurchaseStore['transition'] =>
    async (id, from, to, expectedVersion, patch) => {
      const result = await writer.transition(id, from, to, expectedVersion, patch);
      if (result.ok && !(from.length === 1 && from[0] === to)) {
        metrics.purchaseTransitions.inc({ from: fromLabel(from), to });
        if (to === 'succeeded') countSold(metrics, result.record);
      }
      return result;
    };
  return {
    async create(record, spend, alongside) {
      const result = await store.create(record, spend, alongside);
      if (result.created) metrics.purchasesCreated.inc({ product: result.record.intent.productType });
      // A purchase recorded as already succeeded (recovered from the service) is sold money too.
      if (result.created && result.record.state === 'succeeded') countSold(metrics, result.record);
      return result;
    },
    transition: counted(store),
    // A transition written with the read it was decided on is counted as any other.
    withRecord: (id, step) =>
      store.withRecord(id, (record, tx) => step(record, { ...tx, transition: counted(tx) })),
    get: (id) => store.get(id),
    getByIdempotencyKey: (key) => store.getByIdempotencyKey(key),
    listByMsisdn: (msisdn, options) => store.listByMsisdn(msisdn, options),
    listByState: (state, options) => store.listByState(state, options),
    listUnnotified: (options) => store.listUnnotified(options),
    listRechecking: (options) => store.listRechecking(options),
    noteRecheck: (id, round, at) => store.noteRecheck(id, round, at),
    noteLateSuccess: (id, late) => store.noteLateSuccess(id, late),
    listByIdentifier: (identifier, options) => store.listByIdentifier(identifier, options),
    listByReference: (reference, options) => store.listByReference(reference, options),
    countByState: () => store.countByState(),
    purgeExpired: (options) => store.purgeExpired(options),
  };
}

/** `purchase_amount_minor_total{product, currency}`: the amount of a purchase that reached `succeeded`. */
function countSold(metrics: Metrics, record: PurchaseRecord): void {
  const { productType, amount } = record.intent;
  metrics.purchaseAmount.inc({ product: productType, currency: amount.currency }, amount.minor);
}

/** `sms_send_attempts_total{driver, status}`; `error` when a driver broke its promise not to throw. */
export function instrumentSmsSender(sender: SmsSender, metrics: Metrics): SmsSender {
  const count = (status: SendOutcome['status'] | 'error') =>
    metrics.smsSendAttempts.inc({ driver: sender.name, status });
  const instrumented: SmsSender = {
    name: sender.name,
    async send(sms: OutboundSms): Promise<SendOutcome> {
      let outcome: SendOutcome;
      try {
        outcome = await sender.send(sms);
      } catch (error) {
        count('error');
        throw error;
      }
      count(outcome.status);
      return outcome;
    },
  };
  if (sender.close) instrumented.close = () => sender.close!();
  return instrumented;
}

const PAYMENT_OUTCOMES: readonly PaymentRecordState[] = ['successful', 'failed', 'unknown'];
const REFUND_STATES: readonly PaymentRecordState[] = ['refund_requested', 'refunded', ...REFUND_CARE_STATES];

/**
 * `payment_result_seconds{outcome}` (collect request → successful, failed or unknown) and
 * `payment_refunds_total{state}`, from the payment store's written transitions; every other call
 * goes to the store as it is.
 */
export function instrumentPaymentStore(store: SqlPaymentStore, metrics: Metrics): SqlPaymentStore {
  const transition: SqlPaymentStore['transition'] = async (current, next, noticeId, on) => {
    const result = await store.transition(current, next, noticeId, on);
    if (!result.ok || result.record.state === current.state) return result;
    const { state } = result.record;
    if (PAYMENT_OUTCOMES.includes(state) && ['requested', 'pending'].includes(current.state))
      metrics.paymentResultDuration.observe(
        { outcome: state },
        Math.max(0, Date.parse(result.record.updatedAt) - Date.parse(result.record.requestedAt)) / 1000,
      );
    if (REFUND_STATES.includes(state)) metrics.refunds.inc({ state });
    return result;
  };
  return new Proxy(store, {
    get(target, property) {
      if (property === 'transition') return transition;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
