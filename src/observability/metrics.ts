/**
 * Prometheus metrics for operators: the series, their label bounds and `GET /metrics`. Nothing
 * inside the other modules knows about them: the composition root (`src/gateway/instrument.ts`)
 * wraps each port (purchase service, purchase store, SMS sender, hop engine) in a decorator
 * that delegates every call and records what it saw here.
 */
import { Router } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { bearerMatches } from '../http/secrets';

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

/** `ussd_hops_total` and `ussd_hop_duration_seconds` of one aggregator, labels already applied. */
export interface HopSeries {
  ended: { inc(): void };
  continued: { inc(): void };
  failed: { inc(): void };
  duration: { observe(seconds: number): void };
}

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
  readonly smsDeliveryReports: Counter<'state'>;
  readonly smsInbound: Counter<'provider' | 'outcome'>;
  readonly purchaseAmount: Counter<'product' | 'currency'>;
  readonly debitBalance: Gauge<'account' | 'currency'>;
  readonly debitBalanceLow: Gauge<'account' | 'currency'>;
  readonly balanceChecks: Counter<'outcome'>;
  private readonly errorCodes = new Set<string>();
  private readonly hopSeriesByAggregator = new Map<string, HopSeries>();
  private hopOverflow: HopSeries | undefined;

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
    this.smsDeliveryReports = new Counter({
      name: 'sms_delivery_reports_total',
      help: 'Delivery reports received for outgoing SMS, by state (delivered, pending, failed)',
      labelNames: ['state'],
      registers,
    });
    this.smsInbound = new Counter({
      name: 'sms_inbound_total',
      help: 'Inbound SMS commands handled, by provider and outcome (quoted, bought, refused, rate-limited…)',
      labelNames: ['provider', 'outcome'],
      registers,
    });
    this.purchaseAmount = new Counter({
      name: 'purchase_amount_minor_total',
      help: 'Money sold: the amount (before charges, minor units) of purchases that succeeded, by product and currency',
      labelNames: ['product', 'currency'],
      registers,
    });
    this.debitBalance = new Gauge({
      name: 'debit_account_balance_minor',
      help: 'Balance of the debit account at the purchase service (minor units), polled',
      labelNames: ['account', 'currency'],
      registers,
    });
    this.debitBalanceLow = new Gauge({
      name: 'debit_account_balance_low',
      help: '1 while the debit account balance is under LOW_BALANCE_ALERT, else 0',
      labelNames: ['account', 'currency'],
      registers,
    });
    this.balanceChecks = new Counter({
      name: 'debit_account_balance_checks_total',
      help: 'Polls of the debit account balance, by outcome (ok, error)',
      labelNames: ['outcome'],
      registers,
    });
  }

  /**
   * `purchases_by_state{state}`, read from `count` at each scrape (the store's state indexes),
   * so `needs_attention` and `reconciling` show what is waiting now, not what happened.
   */
  watchPurchaseStates(count: () => Promise<Record<string, number>>): void {
    new Gauge({
      name: 'purchases_by_state',
      help: 'Purchase records in each state now (needs_attention: waiting for an operator; reconciling: outcome being established)',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        // A store that does not answer (Redis down) leaves the last counts; the scrape still answers.
        const counts = await count().catch(() => null);
        for (const [state, n] of Object.entries(counts ?? {})) this.set({ state }, n);
      },
    });
  }

  /** The `outcome` label for a service error code: well-formed codes up to the cap, then `other`. */
  errorCodeLabel(code: string): string {
    if (!CODE_PATTERN.test(code)) return OVERFLOW_LABEL;
    if (!this.errorCodes.has(code)) {
      if (this.errorCodes.size >= MAX_ERROR_CODES) return OVERFLOW_LABEL;
      this.errorCodes.add(code);
    }
    return code;
  }

  /**
   * The hop series of one aggregator, resolved once and reused, so a hop costs two clock reads,
   * one counter increment and one histogram observation. Past the cap, aggregators share `other`.
   */
  hopSeries(aggregator: string): HopSeries {
    const known = this.hopSeriesByAggregator.get(aggregator);
    if (known) return known;
    if (this.hopSeriesByAggregator.size >= MAX_AGGREGATORS)
      return (this.hopOverflow ??= this.resolveHopSeries(OVERFLOW_LABEL));
    const created = this.resolveHopSeries(aggregator);
    this.hopSeriesByAggregator.set(aggregator, created);
    return created;
  }

  private resolveHopSeries(label: string): HopSeries {
    return {
      ended: this.ussdHops.labels(label, 'true'),
      continued: this.ussdHops.labels(label, 'false'),
      failed: this.ussdHops.labels(label, 'error'),
      duration: this.ussdHopDuration.labels(label),
    };
  }
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
