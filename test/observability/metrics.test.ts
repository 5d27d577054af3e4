import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { register as globalRegistry } from 'prom-client';
import request from 'supertest';
import {
  MemoryOutboxStore,
  OutboxSender,
  type OutboxStore,
  type SendOutcome,
  type SmsSender,
} from '../../src/messaging';
import type { UssdHop, UssdReply } from '../../src/ussd/types';
import {
  instrumentHopEngine,
  instrumentPurchaseService,
  instrumentPurchaseStore,
  instrumentSmsSender,
  serviceCallOutcome,
} from '../../src/gateway/instrument';
import { bearerMatches } from '../../src/http/secrets';
import { Metrics, metricsRouter } from '../../src/observability/metrics';
import { freshPurchaseStore } from '../purchases/records';
import { SANDBOX_ACCOUNTS, SANDBOX_CREDENTIALS, startSandbox, type RunningSandbox } from '../../src/sandbox';
import type { HopEngine } from '../../src/ussd/engine/engine';
import {
  createPurchaseService,
  ProviderError,
  PurchaseServiceError,
  TransportError,
  type PurchaseRequest,
} from '../../src/vas';
import { record } from '../purchases/fixtures';

/** The value of one sample (`name` may end in `_count`/`_sum` for a histogram); 0 when absent. */
async function sample(metrics: Metrics, name: string, labels: Record<string, string>): Promise<number> {
  const base = metrics.registry.getSingleMetric(name) ? name : name.replace(/_(count|sum)$/, '');
  const metric = metrics.registry.getSingleMetric(base);
  if (!metric) throw new Error(`no metric ${base}`);
  const { values } = await metric.get();
  const found = values.find(
    (v) =>
      ((v as { metricName?: string }).metricName ?? base) === name &&
      Object.keys(labels).length === Object.keys(v.labels).filter((k) => k !== 'le').length &&
      Object.entries(labels).every(([k, value]) => String(v.labels[k]) === value),
  );
  return found?.value ?? 0;
}

const serviceError = (code: string) =>
  new PurchaseServiceError({
    type: 'api_error',
    code,
    message: code,
    param: null,
    retryable: false,
    requestId: null,
    status: 400,
  });

describe('Metrics', () => {
  it('owns its registry: two instances coexist and nothing reaches the global registry', async () => {
    const a = new Metrics();
    const b = new Metrics();
    a.ussdHops.inc({ aggregator: 'x', end: 'true' });
    expect(await sample(a, 'ussd_hops_total', { aggregator: 'x', end: 'true' })).toBe(1);
    expect(await sample(b, 'ussd_hops_total', { aggregator: 'x', end: 'true' })).toBe(0);
    expect(globalRegistry.getSingleMetric('ussd_hops_total')).toBeUndefined();
  });

  it('collects the default process metrics into its registry unless told not to', async () => {
    expect(await new Metrics().registry.metrics()).toContain('process_cpu_user_seconds_total');
    expect(await new Metrics({ defaultMetrics: false }).registry.metrics()).not.toContain('process_cpu');
  });

  it('labels an error by its code, a transport error by its outcome, anything else as unknown', () => {
    const metrics = new Metrics({ defaultMetrics: false });
    expect(serviceCallOutcome(metrics, serviceError('meter_blocked'))).toBe('meter_blocked');
    expect(serviceCallOutcome(metrics, new TransportError('not_sent', 'ECONNREFUSED', null))).toBe(
      'not_sent',
    );
    expect(serviceCallOutcome(metrics, new TransportError('unknown', 'reset', null))).toBe('unknown');
    expect(serviceCallOutcome(metrics, new Error('bug'))).toBe('unknown');
  });

  it('bounds error-code labels: malformed codes and codes past the 64th become "other"', () => {
    const metrics = new Metrics({ defaultMetrics: false });
    expect(serviceCallOutcome(metrics, serviceError('Not A Code; DROP'))).toBe('other');
    expect(serviceCallOutcome(metrics, serviceError('x'.repeat(49)))).toBe('other');
    for (let i = 0; i < 64; i += 1)
      expect(serviceCallOutcome(metrics, serviceError(`code_${i}`))).toBe(`code_${i}`);
    expect(serviceCallOutcome(metrics, serviceError('code_64'))).toBe('other');
    expect(serviceCallOutcome(metrics, serviceError('code_3'))).toBe('code_3');
  });
});

describe('instrumentPurchaseService against the sandbox', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, silent: true });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  const serviceAt = (baseUrl: string) =>
    createPurchaseService({
      baseUrl,
      interface: 'v1',
      ...SANDBOX_CREDENTIALS,
      timeoutMs: 3000,
      confirmTimeoutMs: 5000,
    });
  const ctx = { requestId: `metrics-test-${process.pid}` };
  const quote = (meter: string): PurchaseRequest => ({
    sourceChannel: 'USSD',
    language: 'en-BW',
    productType: 'ELECTRICITY',
    providerCode: 'BPC',
    debitedAccountId: SANDBOX_ACCOUNTS.current,
    beneficiaryPhoneNumber: '26771234567',
    subscriberIdentifier: meter,
    amount: { currency: 'BWP', minor: 10_000 },
  });

  it('times a successful call as outcome ok and returns its result', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    const service = instrumentPurchaseService(serviceAt(sandbox.url), metrics);
    const products = await service.listProducts(ctx);
    expect(products.length).toBeGreaterThan(0);
    expect(
      await sample(metrics, 'vas_call_duration_seconds_count', { operation: 'list_products', outcome: 'ok' }),
    ).toBe(1);
  });

  it('times a refused call under its error code and rethrows the same error', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    const service = instrumentPurchaseService(serviceAt(sandbox.url), metrics);
    const error = await service.validate(quote('04100000001'), ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe('meter_blocked');
    expect(
      await sample(metrics, 'vas_call_duration_seconds_count', {
        operation: 'validate',
        outcome: 'meter_blocked',
      }),
    ).toBe(1);
  });

  it('times a call that never reached the service as not_sent', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const metrics = new Metrics({ defaultMetrics: false });
    const service = instrumentPurchaseService(serviceAt(`http://127.0.0.1:${port}`), metrics);
    await expect(service.confirm(quote('01234567890'), ctx)).rejects.toBeInstanceOf(TransportError);
    expect(
      await sample(metrics, 'vas_call_duration_seconds_count', { operation: 'confirm', outcome: 'not_sent' }),
    ).toBe(1);
  });
});

describe('instrumentPurchaseStore over the SQL store', () => {
  it('counts creates that wrote a record, not idempotent repeats', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    const store = instrumentPurchaseStore(await freshPurchaseStore(), metrics);
    const first = record();
    expect((await store.create(first)).created).toBe(true);
    expect((await store.create({ ...record(), idempotencyKey: first.idempotencyKey })).created).toBe(false);
    expect(await sample(metrics, 'purchases_created_total', { product: 'ELECTRICITY' })).toBe(1);
    expect(await store.get(first.id)).toMatchObject({ id: first.id });
    expect(await store.getByIdempotencyKey(first.idempotencyKey)).toMatchObject({ id: first.id });
  });

  it('counts transitions that changed the state; not conflicts, not same-state notes', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    const store = instrumentPurchaseStore(await freshPurchaseStore(), metrics);
    const { record: created } = await store.create(record());
    const moved = await store.transition(created.id, ['created'], 'confirming', created.version);
    expect(moved.ok).toBe(true);
    // Stale version and wrong state: conflicts, nothing written.
    expect((await store.transition(created.id, ['created'], 'confirming', created.version)).ok).toBe(false);
    expect((await store.transition(created.id, ['confirming'], 'failed', created.version)).ok).toBe(false);
    expect(await sample(metrics, 'purchase_transitions_total', { from: 'created', to: 'confirming' })).toBe(
      1,
    );

    const confirming = moved.ok ? moved.record : created;
    const noted = await store.transition(confirming.id, ['confirming'], 'confirming', confirming.version, {
      confirmAttempts: 1,
    });
    expect(noted.ok).toBe(true);
    expect(
      await sample(metrics, 'purchase_transitions_total', { from: 'confirming', to: 'confirming' }),
    ).toBe(0);

    const current = noted.ok ? noted.record : confirming;
    const settled = await store.transition(
      current.id,
      ['unknown', 'confirming'],
      'succeeded',
      current.version,
    );
    expect(settled.ok).toBe(true);
    expect(
      await sample(metrics, 'purchase_transitions_total', { from: 'confirming|unknown', to: 'succeeded' }),
    ).toBe(1);
    expect(await store.listByState('succeeded')).toHaveLength(1);
    expect(await store.listByMsisdn(created.intent.beneficiaryMsisdn)).toHaveLength(1);
    expect(await store.listUnnotified()).toHaveLength(1);
  });
});

describe('instrumentSmsSender', () => {
  const sms = (id: string) => ({ id, to: '26771234567', message: 'Your token: 1234' });

  it('counts sent and retry outcomes of the outbox driver, keeping its name', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    const outbox = new MemoryOutboxStore();
    const sender = instrumentSmsSender(new OutboxSender(outbox), metrics);
    expect(sender.name).toBe('outbox');
    expect(await sender.send(sms('a'))).toMatchObject({ status: 'sent' });
    expect(await outbox.list()).toHaveLength(1);

    const broken: OutboxStore = {
      add: () => Promise.reject(new Error('store down')),
      list: () => Promise.resolve([]),
    };
    const failing = instrumentSmsSender(new OutboxSender(broken), metrics);
    expect(await failing.send(sms('b'))).toMatchObject({ status: 'retry' });
    expect(await sample(metrics, 'sms_send_attempts_total', { driver: 'outbox', status: 'sent' })).toBe(1);
    expect(await sample(metrics, 'sms_send_attempts_total', { driver: 'outbox', status: 'retry' })).toBe(1);
  });

  it('counts rejected outcomes and thrown errors (rethrown), and passes close through', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    let closed = false;
    const outcomes: Array<SendOutcome | Error> = [
      { status: 'rejected', reason: 'bad number' },
      new Error('bug'),
    ];
    const driver: SmsSender = {
      name: 'test-driver',
      send: async () => {
        const next = outcomes.shift()!;
        if (next instanceof Error) throw next;
        return next;
      },
      close: async () => {
        closed = true;
      },
    };
    const sender = instrumentSmsSender(driver, metrics);
    expect(await sender.send(sms('c'))).toEqual({ status: 'rejected', reason: 'bad number' });
    await expect(sender.send(sms('d'))).rejects.toThrow('bug');
    await sender.close?.();
    expect(closed).toBe(true);
    expect(
      await sample(metrics, 'sms_send_attempts_total', { driver: 'test-driver', status: 'rejected' }),
    ).toBe(1);
    expect(await sample(metrics, 'sms_send_attempts_total', { driver: 'test-driver', status: 'error' })).toBe(
      1,
    );
    expect(instrumentSmsSender(new OutboxSender(new MemoryOutboxStore()), metrics).close).toBeUndefined();
  });
});

describe('instrumentHopEngine', () => {
  const hop = (aggregator: string): UssdHop => ({
    aggregator,
    sessionId: 's1',
    msisdn: '26771234567',
    serviceCode: '*384*1#',
    text: { kind: 'cumulative', value: '' },
    isNew: true,
    raw: {},
  });

  /** An engine whose replies are scripted; the real one is dialled in metrics-gateway.test.ts. */
  function scripted(replies: Array<UssdReply | Error>): HopEngine {
    return {
      handleHop: async () => {
        const next = replies.shift()!;
        if (next instanceof Error) throw next;
        return next;
      },
      endSession: async () => 'ended',
      sessionActive: async () => false,
    };
  }

  it('counts hops by aggregator and end, and observes each hop duration once', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    const engine = instrumentHopEngine(
      scripted([{ text: 'menu', end: false }, { text: 'bye', end: true }, new Error('engine bug')]),
      metrics,
    );
    expect(await engine.handleHop(hop('africastalking'))).toEqual({ text: 'menu', end: false });
    expect(await engine.handleHop(hop('africastalking'))).toEqual({ text: 'bye', end: true });
    await expect(engine.handleHop(hop('africastalking'))).rejects.toThrow('engine bug');
    expect(
      await engine.endSession({
        aggregator: 'africastalking',
        sessionId: 's1',
        msisdn: '26771234567',
        status: 'completed',
      }),
    ).toBe('ended');
    for (const end of ['false', 'true', 'error'])
      expect(await sample(metrics, 'ussd_hops_total', { aggregator: 'africastalking', end })).toBe(1);
    expect(await sample(metrics, 'ussd_hop_duration_seconds_count', { aggregator: 'africastalking' })).toBe(
      3,
    );
  });

  it('folds aggregators past the 16th into "other"', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    const engine = instrumentHopEngine(
      scripted(Array.from({ length: 18 }, () => ({ text: 'x', end: false }))),
      metrics,
    );
    for (let i = 0; i < 18; i += 1) await engine.handleHop(hop(`agg${i}`));
    expect(await sample(metrics, 'ussd_hops_total', { aggregator: 'agg15', end: 'false' })).toBe(1);
    expect(await sample(metrics, 'ussd_hops_total', { aggregator: 'other', end: 'false' })).toBe(2);
  });
});

describe('metricsRouter', () => {
  // The gateway injects its METRICS_TOKEN check (src/gateway/app.ts); the same here.
  const appWith = (metrics: Metrics, token?: string) =>
    express().use(
      metricsRouter(metrics, {
        authorize: token === undefined ? undefined : (header) => bearerMatches(header, token),
      }),
    );

  it('serves the registry in the Prometheus text format, open when no token is set', async () => {
    const metrics = new Metrics();
    metrics.ussdHops.inc({ aggregator: 'africastalking', end: 'false' });
    const res = await request(appWith(metrics)).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(metrics.registry.contentType);
    expect(res.text).toContain('# TYPE ussd_hops_total counter');
    expect(res.text).toContain('ussd_hops_total{aggregator="africastalking",end="false"} 1');
    expect(res.text).toContain('process_cpu_user_seconds_total');
  });

  it('requires the bearer token when one is set', async () => {
    const app = appWith(new Metrics({ defaultMetrics: false }), 's3cret-token');
    const missing = await request(app).get('/metrics');
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toContain('Bearer');
    expect(missing.text).not.toContain('s3cret-token');
    expect((await request(app).get('/metrics').set('Authorization', 'Bearer wrong')).status).toBe(401);
    expect((await request(app).get('/metrics').set('Authorization', 'Bearer ')).status).toBe(401);
    const ok = await request(app).get('/metrics').set('Authorization', 'Bearer s3cret-token');
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('ussd_hops_total');
  });
});
