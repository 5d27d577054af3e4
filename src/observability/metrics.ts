import { bearerMatches } from '../http/secrets';
import { performance } from 'node:perf_hooks';
import { Router } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { OutboundSms, SendOutcome, SmsSender } from '../channels/sms/outbound/sender';
import type { UssdHop, UssdReply } from '../channels/ussd/types';
import type { PurchaseStore } from '../purchases/store/store';
import type { PurchaseState } from '../purchases/types';
import type { HopEngine } from '../session/engine';
import { outcomeOf, PurchaseServiceError } from '../vas/errors';
import type { CallContext, PurchaseService } from '../vas/port';

/**
 * Prometheus metrics for operators. Nothing inside the other modules knows about them: the
 * composition root wraps each port (purchase service, purchase store, SMS sender, hop engine)
 * in a decorator that delegates every call and records what it saw.
 */

/** A USSD hop must answer within the aggregator's timeout (seconds at most). */
const HOP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Reads answer in milliseconds; confirm and retry may take up to the confirm timeout (30 s+). */
const VAS_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Error codes come from the server: only well-formed ones, and only so many, become labels. */
const CODE_PATTERN = /^[a-z][a-z0-9_]{0,47}$/;
const MAX_ERROR_CODES = 64;
/** Aggregator names come from our adapters; the cap only guards against a bug. */
const MAX_AGGREGATORS = 16;
const OVERFLOW_LABEL = 'other';

export interface MetricsOptions {
  /** Collect Node process metrics (CPU, memory, event loop, GC) into this registry (default true). */
  defaultMetrics?: boolean;
}

/**
 * One gateway's metrics. Owns its own registry, never prom-client's global one, so tests and
 * several gateways in one process do not collide.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly vasCallDuration: Histogram<'operation' | 'outcome'>;
  readonly ussdHops: Counter<'aggregator' | 'end'>;
  readonly ussdHopDuration: Histogram<'aggregator'>;
  readonly purchaseTransitions: Counter<'from' | 'to'>;
  readonly purchasesCreated: Counter<'product'>;
  readonly smsSendAttempts: Counter<'driver' | 'status'>;
  private readonly errorCodes = new Set<string>();

  constructor(options: MetricsOptions = {}) {
    const registers = [this.registry];
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    this.vasCallDuration = new Histogram({
      name: 'vas_call_duration_seconds',
      help: 'Calls to the purchase service by operation and outcome (ok, error code, not_sent, unknown)',
      labelNames: ['operation', 'outcome'],
      buckets: VAS_BUCKETS,
      registers,
    });
    this.ussdHops = new Counter({
      name: 'ussd_hops_total',
      help: 'USSD hops answered, by aggregator and whether the reply ended the dialogue (true, false, error)',
      labelNames: ['aggregator', 'end'],
      registers,
    });
    this.ussdHopDuration = new Histogram({
      name: 'ussd_hop_duration_seconds',
      help: 'Time to answer one USSD hop, by aggregator',
      labelNames: ['aggregator'],
      buckets: HOP_BUCKETS,
      registers,
    });
    this.purchaseTransitions = new Counter({
      name: 'purchase_transitions_total',
      help: 'Purchase state changes written (compare-and-set succeeded and the state changed)',
      labelNames: ['from', 'to'],
      registers,
    });
    this.purchasesCreated = new Counter({
      name: 'purchases_created_total',
      help: 'Purchase records created (idempotent repeats not counted), by product',
      labelNames: ['product'],
      registers,
    });
    this.smsSendAttempts = new Counter({
      name: 'sms_send_attempts_total',
      help: 'Attempts to hand an SMS to the provider, by driver and status (sent, retry, rejected, error)',
      labelNames: ['driver', 'status'],
      registers,
    });
  }

  /** The `outcome` label of a failed purchase-service call, bounded in cardinality. */
  errorOutcome(error: unknown): string {
    if (!(error instanceof PurchaseServiceError)) return outcomeOf(error);
    const code = error.code;
    if (!CODE_PATTERN.test(code)) return OVERFLOW_LABEL;
    if (!this.errorCodes.has(code)) {
      if (this.errorCodes.size >= MAX_ERROR_CODES) return OVERFLOW_LABEL;
      this.errorCodes.add(code);
    }
    return code;
  }
}

/** Times one purchase-service call; rethrows whatever the call threw. */
async function timed<T>(metrics: Metrics, operation: string, call: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await call();
    metrics.vasCallDuration.observe({ operation, outcome: 'ok' }, (performance.now() - started) / 1000);
    return result;
  } catch (error) {
    const outcome = metrics.errorOutcome(error);
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

interface HopSeries {
  ended: { inc(): void };
  continued: { inc(): void };
  failed: { inc(): void };
  duration: { observe(seconds: number): void };
}

/**
 * `ussd_hops_total{aggregator, end}` and `ussd_hop_duration_seconds{aggregator}`. The labelled
 * series are resolved once per aggregator, so a hop costs two clock reads, one counter
 * increment and one histogram observation.
 */
export function instrumentHopEngine(engine: HopEngine, metrics: Metrics): HopEngine {
  const seriesFor = (label: string): HopSeries => ({
    ended: metrics.ussdHops.labels(label, 'true'),
    continued: metrics.ussdHops.labels(label, 'false'),
    failed: metrics.ussdHops.labels(label, 'error'),
    duration: metrics.ussdHopDuration.labels(label),
  });
  const series = new Map<string, HopSeries>();
  let overflow: HopSeries | undefined;
  const seriesOf = (aggregator: string): HopSeries => {
    const known = series.get(aggregator);
    if (known) return known;
    if (series.size >= MAX_AGGREGATORS) return (overflow ??= seriesFor(OVERFLOW_LABEL));
    const created = seriesFor(aggregator);
    series.set(aggregator, created);
    return created;
  };
  return {
    async handleHop(hop: UssdHop): Promise<UssdReply> {
      const started = performance.now();
      const counted = seriesOf(hop.aggregator);
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
  return {
    async create(record) {
      const result = await store.create(record);
      if (result.created) metrics.purchasesCreated.inc({ product: result.record.intent.productType });
      return result;
    },
    async transition(id, from, to, expectedVersion, patch) {
      const result = await store.transition(id, from, to, expectedVersion, patch);
      if (result.ok && !(from.length === 1 && from[0] === to))
        metrics.purchaseTransitions.inc({ from: fromLabel(from), to });
      return result;
    },
    get: (id) => store.get(id),
    getByIdempotencyKey: (key) => store.getByIdempotencyKey(key),
    listByMsisdn: (msisdn, options) => store.listByMsisdn(msisdn, options),
    listByState: (state, options) => store.listByState(state, options),
    listUnnotified: (options) => store.listUnnotified(options),
  };
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

export interface MetricsRouterOptions {
  /** `METRICS_TOKEN`: when set, scrapes must send `Authorization: Bearer <token>`. */
  token?: string;
}

/**
 * `GET /metrics` in the Prometheus text format. Without a token it is open: it is meant to be
 * scraped on a private network (keep the port off the internet, or set METRICS_TOKEN).
 */
export function metricsRouter(metrics: Metrics, options: MetricsRouterOptions = {}): Router {
  const router = Router();
  router.get('/metrics', async (req, res) => {
    if (options.token !== undefined && !bearerMatches(req.get('authorization'), options.token)) {
      res
        .status(401)
        .set('WWW-Authenticate', 'Bearer realm="metrics"')
        .json({ error: 'unauthorized', message: 'send Authorization: Bearer <METRICS_TOKEN>' });
      return;
    }
    const body = await metrics.registry.metrics();
    res
      .status(200)
      .set('Content-Type', metrics.registry.contentType)
      .set('Cache-Control', 'no-store')
      .send(body);
  });
  return router;
}
