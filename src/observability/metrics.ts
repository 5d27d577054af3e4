/**
 * Prometheus metrics for operators: the series, their label bounds and `GET /metrics`. Nothing
 * inside the other modules knows about them: the composition root (`src/gateway/instrument.ts`)
 * wraps each port (purchase service, purchase store, SMS sender, hop engine) in a decorator
 * that delegates every call and records what it saw here.
 */
import { Router } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ReadinessReport } from './probes';

/** A USSD hop must answer within the aggregator's timeout (seconds at most). */
const HOP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Reads answer in milliseconds; confirm and retry may take up to the confirm timeout (30 s+). */
const VAS_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** From the PIN prompt to the payment's result: the payer's seconds, up to the provider's expiry (minutes). */
const PAYMENT_BUCKETS = [1, 2.5, 5, 10, 20, 30, 60, 90, 120, 300, 600];

/** Longest a scrape waits for the queues' backlog. */
const QUEUE_READ_MS = 1500;

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

/** One job queue's backlog, for `queue_jobs` and `queue_oldest_waiting_seconds`. */
export interface QueueState {
  queue: string;
  counts: Record<string, number>;
  oldestWaitingSeconds: number;
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
  readonly vasCallDuration = this.histogram(
    'vas_call_duration_seconds',
    'Calls to the purchase service by operation and outcome (ok, error code, not_sent, unknown)',
    ['operation', 'outcome'],
    VAS_BUCKETS,
  );
  readonly ussdHops = this.counter(
    'ussd_hops_total',
    'USSD hops answered, by aggregator and whether the reply ended the dialogue (true, false, error)',
    ['aggregator', 'end'],
  );
  readonly ussdHopDuration = this.histogram(
    'ussd_hop_duration_seconds',
    'Time to answer one USSD hop, by aggregator',
    ['aggregator'],
    HOP_BUCKETS,
  );
  readonly purchaseTransitions = this.counter(
    'purchase_transitions_total',
    'Purchase state changes written (compare-and-set succeeded and the state changed)',
    ['from', 'to'],
  );
  readonly purchasesCreated = this.counter(
    'purchases_created_total',
    'Purchase records created (idempotent repeats not counted), by product',
    ['product'],
  );
  readonly smsSendAttempts = this.counter(
    'sms_send_attempts_total',
    'Attempts to hand an SMS to the provider, by driver and status (sent, retry, rejected, error)',
    ['driver', 'status'],
  );
  readonly smsDeliveryReports = this.counter(
    'sms_delivery_reports_total',
    'Delivery reports received for outgoing SMS, by state (delivered, pending, failed)',
    ['state'],
  );
  readonly smsInbound = this.counter(
    'sms_inbound_total',
    'Inbound SMS commands handled, by provider and outcome (quoted, bought, refused, rate-limited…)',
    ['provider', 'outcome'],
  );
  readonly purchaseAmount = this.counter(
    'purchase_amount_minor_total',
    'Money sold: the amount (before charges, minor units) of purchases that succeeded, by product and currency',
    ['product', 'currency'],
  );
  readonly debitBalance = this.gauge(
    'debit_account_balance_minor',
    'Balance of the debit account at the purchase service (minor units), polled',
    ['account', 'currency'],
  );
  readonly debitBalanceLow = this.gauge(
    'debit_account_balance_low',
    '1 while the debit account balance is under LOW_BALANCE_ALERT, else 0',
    ['account', 'currency'],
  );
  readonly balanceChecks = this.counter(
    'debit_account_balance_checks_total',
    'Polls of the debit account balance, by outcome (ok, error)',
    ['outcome'],
  );
  readonly paymentResultDuration = this.histogram(
    'payment_result_seconds',
    "From the collect request (the payer's PIN prompt) to the payment's result, by outcome (successful, failed, unknown)",
    ['outcome'],
    PAYMENT_BUCKETS,
  );
  readonly refunds = this.counter(
    'payment_refunds_total',
    'Refunds to buyers by state reached (refund_requested, refunded, refund_failed, needs_attention)',
    ['state'],
  );
  private readonly errorCodes = new Set<string>();
  private readonly hopSeriesByAggregator = new Map<string, HopSeries>();
  private hopOverflow: HopSeries | undefined;

  constructor(options: MetricsOptions = {}) {
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** `payments_by_state{state}`, read from `count` at each scrape (the payments' state index). */
  watchPaymentStates(count: () => Promise<Record<string, number>>): void {
    this.watchByState(
      'payments_by_state',
      "Buyers' payments in each state now (pending: waiting for the payer; needs_attention, refund_failed: a refund for a person)",
      count,
    );
  }

  /**
   * `purchases_by_state{state}`, read from `count` at each scrape (the store's state indexes),
   * so `needs_attention` and `reconciling` show what is waiting now, not what happened.
   */
  watchPurchaseStates(count: () => Promise<Record<string, number>>): void {
    this.watchByState(
      'purchases_by_state',
      'Purchase records in each state now (needs_attention: waiting for an operator; reconciling: outcome being established)',
      count,
    );
  }

  private watchByState(name: string, help: string, count: () => Promise<Record<string, number>>): void {
    new Gauge({
      name,
      help,
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        // A store that does not answer (Redis down) leaves the last counts; the scrape still answers.
        const counts = await count().catch(() => null);
        for (const [state, n] of Object.entries(counts ?? {})) this.set({ state }, n);
      },
    });
  }

  /**
   * `sms_undelivered`, read from `count` at each scrape: SMS that never reached the phone
   * (refused by the provider, or given up) and that nobody resent yet. Alert on it above 0.
   */
  watchUndeliveredSms(count: () => Promise<number>): void {
    new Gauge({
      name: 'sms_undelivered',
      help: 'SMS the subscriber did not get (provider refused, or retries given up) and not resent yet: /admin/sms/undelivered',
      registers: [this.registry],
      async collect() {
        // A store that does not answer (Redis down) leaves the last count; the scrape still answers.
        const n = await count().catch(() => null);
        if (n !== null) this.set(n);
      },
    });
  }

  /**
   * `payment_notices_unmatched`, read from `count` at each scrape: success notices no payment of
   * ours took, past the time any could still be matched (money a person must return). Alert above 0.
   */
  watchUnmatchedPayments(count: () => Promise<number>): void {
    new Gauge({
      name: 'payment_notices_unmatched',
      help: 'Success notices (the provider says a buyer paid) that no payment of ours took, past their matching time: /admin/payments/unmatched',
      registers: [this.registry],
      async collect() {
        // A database that does not answer leaves the last count; the scrape still answers.
        const n = await count().catch(() => null);
        if (n !== null) this.set(n);
      },
    });
  }

  /**
   * `readiness_check_ok{check}`: 1 when the readiness check passed at this scrape, 0 when not
   * (the records, Redis, the schema's migrations). Alert on 0: a dependency this process cannot reach.
   */
  watchReadiness(report: () => Promise<ReadinessReport>): void {
    new Gauge({
      name: 'readiness_check_ok',
      help: 'Readiness checks at this scrape: 1 passed, 0 failed (records: PostgreSQL answers; redis: Redis answers; migrations: schema at this build)',
      labelNames: ['check'],
      registers: [this.registry],
      async collect() {
        const { checks } = await report();
        for (const [check, state] of Object.entries(checks)) this.set({ check }, state === 'ok' ? 1 : 0);
      },
    });
  }

  /**
   * `queue_jobs{queue,state}` and `queue_oldest_waiting_seconds{queue}`, read from `read` at each
   * scrape: the backlog of each job queue and how long its oldest job has waited for a worker.
   */
  watchQueues(read: () => Promise<QueueState[]>): void {
    let last: Promise<QueueState[] | null> | undefined;
    // One read serves both gauges of a scrape. A queue store that does not answer in time (BullMQ's
    // connections wait for Redis to come back) keeps the last values: the scrape still answers.
    const once = (): Promise<QueueState[] | null> =>
      (last ??= new Promise<QueueState[] | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), QUEUE_READ_MS);
        timer.unref();
        read().then(resolve, () => resolve(null));
      }).finally(() => setImmediate(() => (last = undefined))));
    new Gauge({
      name: 'queue_jobs',
      help: 'Jobs in each queue by state (waiting: for a worker; active; delayed: a retry or a timer; failed: given up)',
      labelNames: ['queue', 'state'],
      registers: [this.registry],
      async collect() {
        for (const q of (await once()) ?? [])
          for (const [state, n] of Object.entries(q.counts)) this.set({ queue: q.queue, state }, n);
      },
    });
    new Gauge({
      name: 'queue_oldest_waiting_seconds',
      help: 'Age of the oldest job waiting for a worker, by queue (0 when none waits)',
      labelNames: ['queue'],
      registers: [this.registry],
      async collect() {
        for (const q of (await once()) ?? []) this.set({ queue: q.queue }, q.oldestWaitingSeconds);
      },
    });
  }

  /**
   * `payments_outcome_unknown`, read from `count` at each scrape: payments whose outcome nobody
   * learnt once their re-checks were over, not reviewed by a person (src/payments/unknown.ts).
   */
  watchUnknownPayments(count: () => Promise<number>): void {
    new Gauge({
      name: 'payments_outcome_unknown',
      help: 'Payments nobody learnt the outcome of (re-checks over): a person looks each up at the provider: /admin/payments/unknown',
      registers: [this.registry],
      async collect() {
        const n = await count().catch(() => null);
        if (n !== null) this.set(n);
      },
    });
  }

  /**
   * `payment_notices_spooled`, read from `count` at each scrape: provider callbacks and push
   * answers kept while PostgreSQL was away, not applied yet (src/payments/spool.ts). Above 0 for
   * long: the records are still away, or refuse what was kept.
   */
  watchSpooledNotices(count: () => Promise<number>): void {
    new Gauge({
      name: 'payment_notices_spooled',
      help: 'Provider callbacks and push answers kept while PostgreSQL was away, waiting to be applied',
      registers: [this.registry],
      async collect() {
        const n = await count().catch(() => null);
        if (n !== null) this.set(n);
      },
    });
  }

  /**
   * `reconciliation_mismatches_open{reason}`: mismatches of the three-way reconciliation still
   * open, every reason always present (0 when none), so an alert on `> 0` sees each one.
   */
  watchReconciliation(reasons: readonly string[], count: () => Promise<Record<string, number>>): void {
    new Gauge({
      name: 'reconciliation_mismatches_open',
      help: 'Reconciliation mismatches still open, by reason: /admin/reconciliation/mismatches',
      labelNames: ['reason'],
      registers: [this.registry],
      async collect() {
        const open = await count().catch(() => null);
        if (open) for (const reason of reasons) this.set({ reason }, open[reason] ?? 0);
      },
    });
  }

  private counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  private gauge<L extends string>(name: string, help: string, labelNames: readonly L[]): Gauge<L> {
    return new Gauge({ name, help, labelNames, registers: [this.registry] });
  }

  private histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: number[],
  ): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
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
  /**
   * Whether a scrape may read the metrics, given its `Authorization` header; unset: open. The
   * gateway injects its `METRICS_TOKEN` bearer check (observability knows no secrets of its own).
   */
  authorize?: (authorization: string | undefined) => boolean;
}

/**
 * `GET /metrics` in the Prometheus text format. Without a token it is open: it is meant to be
 * scraped on a private network (keep the port off the internet, or set METRICS_TOKEN).
 */
export function metricsRouter(metrics: Metrics, options: MetricsRouterOptions = {}): Router {
  const router = Router();
  router.get('/metrics', async (req, res) => {
    if (options.authorize && !options.authorize(req.get('authorization'))) {
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
