/**
 * The gateway's HTTP process: the USSD route, health, metrics, the admin and dev routes, on
 * top of the money path. The one place where the folders are wired together (with
 * `money-path.ts` for what the standalone worker shares).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import proxyAddr from 'proxy-addr';
import { type DialogueServices, USSD_SHARED_CONTEXT } from '../../machines/ussd-session.machine';
import {
  ussdMachinesStartingOn,
  type UssdMachineBuild,
  type UssdMachines,
} from '../../machines/ussd-versions';
import { outboxRouter, type OutboxStore } from '../messaging';
import { ussdAdapters } from '../ussd/aggregators/index';
import { parseGenericMapping, type GenericMapping } from '../ussd/aggregators/generic/adapter';
import type { UssdAdapter } from '../ussd/types';
import { settledAggregatorSettings, ussdCallbacks } from '../ussd/router';
import { checkCallbacksGuarded, ConfigError, type Config } from '../config';
import { loadLocales } from '../i18n';
import { Metrics, metricsRouter } from '../observability/metrics';
import { probesRouter } from '../observability/probes';
import { requestIdMiddleware } from '../observability/request-id';
import { createAdminRouter } from '../purchases/admin/router';
import type { RunningPurchaseDesk } from '../purchases/desk';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../sandbox';
import { createHopEngine, type HopEngine } from '../ussd/engine/engine';
import { MemorySessionStore, RedisSessionStore, type SessionStore } from '../ussd/engine/store';
import { Catalogue } from '../vas';
import { registrationTeller } from '../agents/registration-teller';
import { dialogueServices } from './dialogue-services';
import { instrumentHopEngine } from './instrument';
import { startMoneyPath } from './money-path';
import type { Database } from '../records/database';
import { IN_MEMORY } from '../records/settings';
import { startSmsChannel } from './sms-channel';
import { blocklistRouter } from '../spend/admin';
import { AgentDesk, accountCheckFor } from '../agents/admin/desk';
import { createAgentAdminRouter } from '../agents/admin/router';
import { bearerMatches } from '../http/secrets';
import { componentLogger } from '../observability/logger';
import { inboundSmsAdapters } from '../sms/inbound/adapters';
import { simulatorRouter } from '../simulator/router';
import { adminResponses, CustomerCare } from '../purchases/care';
import { reportRoutes } from '../reports/routes';
import { caseRoutes } from '../purchases/care/case-routes';
import { noticeRoutes } from '../subscribers/notice-routes';
import { startBalanceWatch, type BalanceWatch } from '../sales/balance-watch';
import {
  startPaymentSandbox,
  type PaymentSandboxOptions,
  type RunningPaymentSandbox,
} from '../payments/sandbox';
import { EMBEDDED_PAYMENT_SANDBOX } from '../payments/setup';
import type { PaymentLifecycleSettings } from '../payments/lifecycle/machine';
import type { LifecycleSettings } from '../purchases/lifecycle/machine';
import { paymentCallbacks, paymentProviderFor, type PaymentPath } from './payments';
import { matchableForMs, UnmatchedPayments } from '../payments/unmatched';
import { UnknownPayments } from '../payments/unknown';
import { paymentAdminRoutes } from '../payments/admin-routes';
import { probesFor, watchQueues } from './readiness';
import { purchaseStory } from '../purchases/care/story';
import { OperatorAccounts } from '../operators/accounts';
import { adminAuth } from '../operators/admin-auth';
import { passwordPepperFor } from '../operators/pepper';
import { makeFirstOperator } from '../operators/first-operator';
import { consoleRouter } from '../console/router';
import type { Reconciliation } from '../reconciliation/service';
import { reconciliationRoutes } from '../reconciliation/routes';
import { startNightly, type Nightly } from '../reconciliation/schedule';
import { openByReason } from '../reconciliation/store';
import { MISMATCH_REASONS } from '../reconciliation/types';
import { reconciliationFor } from './reconciliation';

const log = componentLogger('gateway');

/** What tests and the benchmark may change about a gateway beyond its config. */
export interface GatewayOptions {
  /** Options of the embedded sandbox (tests shorten its delays); ignored with a real service. */
  sandbox?: SandboxOptions;
  /** Options of the embedded payment sandbox (tests shorten its delays); ignored with a real provider. */
  paymentSandbox?: PaymentSandboxOptions;
  /** Overrides of the payment lifecycle's timings (tests shorten the status polls). */
  paymentLifecycle?: Partial<PaymentLifecycleSettings>;
  /** Overrides of the purchase lifecycle's timings (tests shorten the confirm's in-flight margin). */
  purchaseLifecycle?: Partial<LifecycleSettings>;
  /** Host to listen on (default all interfaces). */
  host?: string;
  /**
   * Replaces the dialogue engine (default: the USSD machine's, `createHopEngine`) with one built
   * from the same session store and dialogue services: the benchmark's floor
   * (`bench/floor-engine.ts`) measures the hop path without the dialogue this way.
   */
  hopEngine?: (parts: { store: SessionStore; services: DialogueServices }) => HopEngine;
  /**
   * The USSD machine versions served (default `USSD_MACHINES`, machines/ussd-versions.ts): tests
   * play a deploy with builds that know other versions.
   */
  ussdMachines?: UssdMachines;
  /** The system of record, already open (tests share one); else opened from `config.records`. */
  records?: Database;
}

/** A running gateway and everything it started, for `main`, tests and the benchmark. */
export interface Gateway {
  url: string;
  port: number;
  /** Base URL of the purchase service in use (the embedded sandbox's in the default mode). */
  purchaseServiceUrl: string;
  sandbox: RunningSandbox | undefined;
  /** The embedded payment sandbox, when it collects (PAYMENT_PROVIDER unset beside the embedded sandbox). */
  paymentSandbox: RunningPaymentSandbox | undefined;
  desk: RunningPurchaseDesk;
  /** The payment step (the buyer pays before the confirm); null when nothing is collected. */
  payments: PaymentPath | null;
  /** The system of record (purchases, agents, floats, spend, audit). */
  records: Database;
  engine: HopEngine;
  outbox: OutboxStore;
  /** This gateway's metrics (its own registry), served at `GET /metrics`. */
  metrics: Metrics;
  /** The debit account's balance poll (`check()` reads it now). */
  balanceWatch: BalanceWatch;
  /** The file with the first operator's one-time password, when this start made it (embedded records). */
  firstOperatorFile: string | null;
  /** The three-way reconciliation, and what runs it by itself (src/reconciliation). */
  reconciliation: Reconciliation;
  nightly: Nightly;
  close(): Promise<void>;
}

/** Listen on `port` (0: any free port), resolving once the server accepts connections. */
function listen(server: Server, port: number, host: string | undefined): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/**
 * With TRUST_PROXY set every request should come through the load balancer, which adds
 * X-Forwarded-For. One without it reached the port directly: say so (once per 10 minutes).
 */
function directRequestWarning(): (req: IncomingMessage) => void {
  let lastWarned = 0;
  return (req) => {
    if (req.headers['x-forwarded-for'] === undefined && Date.now() - lastWarned > 600_000) {
      lastWarned = Date.now();
      log.warn(
        'TRUST_PROXY is set but a request came without X-Forwarded-For: the port is reachable directly',
        {
          ip: req.socket.remoteAddress,
          path: req.url?.split('?')[0],
        },
      );
    }
  };
}

/** The aggregators from config: the generic mapping parsed, per-aggregator names checked. */
function buildUssdAdapters(config: Config): UssdAdapter[] {
  let genericMapping: GenericMapping | undefined;
  if (config.ussd.genericMapping !== undefined) {
    try {
      genericMapping = parseGenericMapping(config.ussd.genericMapping);
    } catch (error) {
      throw new ConfigError(`USSD_GENERIC_MAPPING: ${(error as Error).message}`);
    }
  }
  const adapters = ussdAdapters({
    comviva: { credentials: config.ussd.comviva, serviceCode: config.ussd.comvivaServiceCode },
    genericMapping,
  });
  const names = new Set(adapters.map((a) => a.name));
  for (const name of Object.keys(config.ussd.aggregators))
    if (!names.has(name))
      throw new ConfigError(
        `USSD_*_${name.toUpperCase()}: no aggregator "${name}" (there are: ${[...names].join(', ')}${genericMapping ? '' : '; generic needs USSD_GENERIC_MAPPING'})`,
      );
  return adapters;
}

/** How long `close()` lets hops in flight finish before cutting their connections. */
const DRAIN_MS = 5000;
/** `/livez` before the routes are wired: the process serves, it is not ready yet. */
const STARTING_LIVE = JSON.stringify({ status: 'live', role: 'gateway', starting: true });

/**
 * Start the gateway: the embedded sandbox when no purchase service is configured, the money
 * path (`startMoneyPath`), the USSD hop engine, and the HTTP routes.
 */
export async function startGateway(config: Config, options: GatewayOptions = {}): Promise<Gateway> {
  // Checked before anything starts, so a bad value leaves nothing running.
  const locales = loadLocales();
  if (!locales.has(config.defaultLanguage))
    throw new ConfigError(
      `DEFAULT_LANGUAGE=${config.defaultLanguage} has no catalogue in locales/ (there are: ${locales.languages().join(', ')})`,
    );
  const adapters = buildUssdAdapters(config);
  const aggregatorSettings = settledAggregatorSettings(
    adapters,
    config.ussd.aggregators,
    config.ussd.screenLimit,
  );
  checkCallbacksGuarded(config, adapters);
  const sandbox = config.embeddedSandbox
    ? await startSandbox({ ...config.sandbox, silent: true, ...options.sandbox })
    : undefined;
  const purchaseServiceUrl = sandbox?.url ?? config.purchaseApi.baseUrl!;
  const paymentSandbox = config.payments.embedded
    ? await startPaymentSandbox({
        ...EMBEDDED_PAYMENT_SANDBOX,
        port: config.payments.sandboxPort,
        silent: true,
        ...options.paymentSandbox,
      })
    : undefined;
  // Listening before the money path: the embedded payment sandbox's callbacks need our URL. Until
  // everything is wired every request is answered 503.
  const serving: { handler?: (req: IncomingMessage, res: ServerResponse) => void } = {};
  const server = createServer((req, res) => {
    if (serving.handler) serving.handler(req, res);
    // Alive while it starts (migrations may take a while): only readiness waits for the start.
    else if (req.url === '/livez')
      res.writeHead(200, { 'content-type': 'application/json' }).end(STARTING_LIVE);
    else res.writeHead(503, { 'content-type': 'application/json' }).end('{"status":"starting"}');
  });
  await listen(server, config.port, options.host ?? config.host);
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const metrics = new Metrics();
  const moneyPath = await startMoneyPath(config, {
    purchaseServiceUrl,
    runWorkers: config.gatewayWorkers,
    metrics,
    locales,
    records: options.records,
    paymentLifecycle: options.paymentLifecycle,
    purchaseLifecycle: options.purchaseLifecycle,
    paymentProvider: paymentProviderFor(config.payments, {
      sandboxUrl: paymentSandbox?.url,
      gatewayUrl: url,
    }),
  }).catch(async (error: unknown) => {
    // Nothing of a start that failed keeps listening (a process that stays up, a test that hangs).
    await new Promise((resolve) => server.close(resolve));
    await paymentSandbox?.close();
    await sandbox?.close();
    throw error;
  });
  const { desk, redis } = moneyPath;
  // Liveness asks nothing; readiness asks the records, the schema and Redis (src/gateway/readiness.ts).
  const probes = probesFor('gateway', moneyPath);
  metrics.watchReadiness(() => probes.report());
  const queueWatch = moneyPath.bull
    ? watchQueues(moneyPath.bull, { payments: moneyPath.payments !== null })
    : undefined;
  if (queueWatch) metrics.watchQueues(() => queueWatch.read());
  // The operator's notice, read now and every few seconds: a hop never waits for it.
  await moneyPath.subscribers.notices.start();
  const catalogue = new Catalogue(moneyPath.service);

  const sessions = redis ? new RedisSessionStore(redis, config.redisPrefix) : new MemorySessionStore();
  const services = dialogueServices(config, moneyPath, catalogue);
  const machines = options.ussdMachines ?? ussdMachinesStartingOn(config.ussd.machineStart);
  const served = (build: UssdMachineBuild) => ({
    version: build.version,
    machine: build.create(services),
    screenOf: build.screenOf,
  });
  const start = served(machines.start);
  const hopEngine =
    options.hopEngine?.({ store: sessions, services }) ??
    createHopEngine({
      store: sessions,
      machine: start.machine,
      machineVersion: start.version,
      otherVersions: machines.others.map(served),
      sharedContextKeys: USSD_SHARED_CONTEXT,
      screenOf: start.screenOf,
      locales,
      screenLimit: config.ussd.screenLimit,
      hopBudgetMs: config.ussd.hopBudgetMs,
      sessionTtlS: config.ussd.sessionTtlS,
      resumeWindowS: config.ussd.resumeWindowS,
      defaultLanguage: locales.meta(config.defaultLanguage).tag,
    });
  const engine = instrumentHopEngine(hopEngine, metrics);
  const balanceWatch = startBalanceWatch({
    service: moneyPath.service,
    accountId: config.debitAccountId,
    metrics,
    everyMs: config.care.balancePollMs,
    alert: config.care.lowBalanceAlert,
  });
  const smsChannel = await startSmsChannel(
    config,
    moneyPath,
    catalogue,
    sessions,
    config.gatewayWorkers,
    metrics,
  );

  const app = express();
  app.disable('x-powered-by');
  // Behind a load balancer, the caller's address (the allow-lists) must be the aggregator's.
  const warnIfDirect = config.ussd.trustProxy !== undefined ? directRequestWarning() : undefined;
  if (config.ussd.trustProxy !== undefined) app.set('trust proxy', config.ussd.trustProxy);
  app.set('etag', false);
  // The hot path: the aggregators' and the payment providers' callbacks on node:http directly,
  // ahead of express. A hop carries its own request id (aggregator-session-hop) into its logs.
  const trusted = app.get('trust proxy fn') as Parameters<typeof proxyAddr>[1];
  const clientIp =
    config.ussd.trustProxy !== undefined ? (req: IncomingMessage) => proxyAddr(req, trusted) : undefined;
  const ussd = ussdCallbacks({
    engine,
    adapters,
    aggregators: aggregatorSettings,
    callbackSecret: config.ussd.callbackSecret,
    allowedIps: config.ussd.allowedIps,
    clientIp,
  });
  // The payment callbacks too: a paid sale brings one each.
  const paid = moneyPath.payments
    ? paymentCallbacks(moneyPath.payments, config.payments.callback, clientIp)
    : () => false;
  app.use(smsChannel.router);
  app.use(requestIdMiddleware());
  // What each part of the gateway runs on, named for what it is (fixed at start).
  const parts = {
    sessions: redis ? 'Redis' : 'in memory',
    jobs: redis ? 'Redis (BullMQ)' : 'in process',
    records:
      moneyPath.records.kind === 'postgres'
        ? 'PostgreSQL'
        : `embedded PostgreSQL (PGlite)${config.records.dataDir === IN_MEMORY ? ' in memory' : ''}`,
    purchaseService: sandbox ? 'embedded sandbox' : 'configured',
    interface: config.purchaseApi.interface,
    payments: !moneyPath.payments
      ? 'none'
      : config.payments.embedded
        ? `embedded sandbox (${config.payments.provider})`
        : config.payments.provider,
    sms: config.sms.driver,
  };
  app.get('/healthz', async (_req, res) => {
    // The readiness checks, each bounded (a dependency that does not answer must not hang the
    // health check): what is wrong is named (`problems`, e.g. the records while PostgreSQL fails
    // over); only Redis gone turns it 503, as the Dockerfile's HEALTHCHECK has always read it.
    const { checks } = await probes.report();
    const problems = Object.fromEntries(Object.entries(checks).filter(([, state]) => state !== 'ok'));
    const redisOk = checks.redis === undefined || checks.redis === 'ok';
    const healthy = Object.keys(problems).length === 0;
    res.status(redisOk ? 200 : 503).json({
      status: healthy ? 'ok' : 'degraded',
      ...parts,
      redis: redis ? (redisOk ? 'ok' : 'unreachable') : 'not used',
      ...(!healthy && { problems }),
    });
  });
  app.use(probesRouter(probes));
  metrics.watchPurchaseStates(() => desk.store.countByState());
  // Money the provider says it took that no payment of ours holds (src/payments/unmatched.ts).
  const unmatched = moneyPath.payments
    ? new UnmatchedPayments(
        moneyPath.payments.store,
        matchableForMs(moneyPath.payments.lifecycle.settings),
        moneyPath.audit,
      )
    : null;
  if (unmatched) metrics.watchUnmatchedPayments(() => unmatched.count());
  // Payments whose outcome nobody learnt (src/payments/unknown.ts): in front of a person, not silence.
  const unknown = moneyPath.payments ? new UnknownPayments(moneyPath.payments.store, moneyPath.audit) : null;
  if (unknown) metrics.watchUnknownPayments(() => unknown.count());
  // The operator's books: the providers' statements, the wallet and our records, matched daily.
  const reconciliation = reconciliationFor(config, {
    db: moneyPath.records,
    audit: moneyPath.audit,
    service: moneyPath.service,
    paymentSandboxUrl: paymentSandbox?.url,
  });
  metrics.watchReconciliation(MISMATCH_REASONS, () => openByReason(moneyPath.records));
  const nightly = startNightly({
    reconciliation,
    timeZone: config.timeZone,
    nightlyAt: config.reconciliation.nightlyAt,
    alert: {
      webhookUrl: config.reconciliation.alertWebhookUrl,
      msisdn: config.reconciliation.alertMsisdn,
      sendSms: moneyPath.tellAgent,
    },
  });
  const metricsToken = config.metricsToken;
  app.use(
    metricsRouter(metrics, {
      authorize: metricsToken === undefined ? undefined : (header) => bearerMatches(header, metricsToken),
    }),
  );
  if (config.devRoutes) {
    // The outbox holds tokens: open only in the embedded mode (on loopback), else the admin bearer.
    const adminToken = config.adminToken;
    if (!config.embeddedSandbox && adminToken)
      app.use('/dev', (req, res, next) => {
        if (bearerMatches(req.get('authorization'), adminToken)) next();
        else res.status(401).json({ error: 'unauthorised' });
      });
    app.use(outboxRouter(moneyPath.outbox));
    app.use(
      simulatorRouter({
        aggregators: adapters.map((a) => a.name),
        defaultScreenLimit: config.ussd.screenLimit,
        aggregatorSettings,
        ussdSecret: config.ussd.callbackSecret,
        // Checked by buildUssdAdapters above: parsing again cannot fail.
        genericMapping: config.ussd.genericMapping
          ? parseGenericMapping(config.ussd.genericMapping)
          : undefined,
        comvivaCredentials: config.ussd.comviva !== undefined,
        inbound: inboundSmsAdapters,
        smsSecret: config.smsMo.callbackSecret,
        sandboxUrl: sandbox?.url,
        paymentSandboxUrl: paymentSandbox?.url,
        agentDesk: sandbox ? new AgentDesk(moneyPath.agents, accountCheckFor(moneyPath.service)) : undefined,
      }),
    );
  }
  const credentials = config.care.adminCredentials;
  // Named operators (src/operators): the console at /console, and the one gate of /admin that
  // names every caller (a shared token, a personal token or a console session) and checks its role.
  const operators = new OperatorAccounts({
    db: moneyPath.records,
    pepper: passwordPepperFor(
      config.console.passwordPepper,
      config.records?.url ? undefined : config.records?.dataDir,
    ),
    audit: moneyPath.audit,
    policy: { idleMs: config.console.idleMs, lockMs: config.console.lockMs },
  });
  if (config.records?.url && !config.console.passwordPepper)
    log.warn(
      "OPERATOR_PASSWORD_PEPPER is unset with DATABASE_URL: operators' passwords work only until this process stops (set it, as for the CLI)",
    );
  // The embedded database is this process's: its first operator is made here (first-operator.ts).
  const embeddedDir = config.records?.url ? undefined : config.records?.dataDir;
  const firstOperatorFile =
    embeddedDir && embeddedDir !== IN_MEMORY ? await makeFirstOperator(operators, embeddedDir) : null;
  app.use(
    consoleRouter({
      accounts: operators,
      credentials,
      secureCookies: config.console.secureCookies,
      timeZone: config.timeZone,
    }),
  );
  app.use('/admin', adminAuth({ accounts: operators, credentials, audit: moneyPath.audit }));
  const care = new CustomerCare({
    store: desk.store,
    lifecycle: desk.lifecycle,
    audit: moneyPath.audit,
    region: config.defaultRegion,
  });
  // Every admin answer masked, or its reveal audited first (src/purchases/care/masking.ts).
  app.use(
    '/admin',
    adminResponses({
      credentials,
      recordReveal: (actor, what, purchaseId) => care.recordReveal(actor, what, purchaseId),
    }),
  );
  app.use(
    createAdminRouter({
      desk,
      adminToken: credentials,
      notifications: moneyPath.sms.store,
      care,
      story: (id) => purchaseStory(moneyPath.records, id),
      counts: () => desk.store.countByState(),
    }),
  );
  app.use(blocklistRouter(moneyPath.spend.store, credentials, config.defaultRegion));
  // Issue 31: complaint cases beside the needs_attention purchases, and the operator's notice.
  app.use(
    caseRoutes({
      cases: moneyPath.subscribers.cases,
      credentials,
      region: config.defaultRegion,
      needsAttention: (limit) => desk.listByState('needs_attention', { limit }),
    }),
  );
  app.use(noticeRoutes(moneyPath.subscribers.notices, credentials));
  if (unmatched && moneyPath.payments)
    app.use(paymentAdminRoutes(unmatched, credentials, moneyPath.payments.store, unknown ?? undefined));
  app.use(reconciliationRoutes(reconciliation, credentials));
  app.use(
    reportRoutes({
      db: moneyPath.records,
      credentials,
      timeZone: config.timeZone,
      floatCurrency: config.agents.currency,
    }),
  );
  app.use(
    createAgentAdminRouter({
      desk: new AgentDesk(moneyPath.agents, accountCheckFor(moneyPath.service), {
        onDepositDecided: moneyPath.depositTold,
        onRegistrationDecided: registrationTeller({
          registry: moneyPath.agents.registry,
          locales: moneyPath.locales,
          send: moneyPath.tellAgent,
        }),
      }),
      adminToken: credentials,
    }),
  );
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });

  serving.handler = (req, res) => {
    if (warnIfDirect) warnIfDirect(req);
    if (!ussd(req, res) && !paid(req, res)) app(req, res);
  };

  return {
    url,
    port,
    purchaseServiceUrl,
    sandbox,
    paymentSandbox,
    desk,
    payments: moneyPath.payments,
    records: moneyPath.records,
    engine,
    outbox: moneyPath.outbox,
    metrics,
    balanceWatch,
    firstOperatorFile,
    reconciliation,
    nightly,
    async close() {
      probes.drain();
      // Stop accepting, let hops in flight answer (bounded), then cut what is left.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const drained = await Promise.race([
        closed.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(resolve, DRAIN_MS, false).unref()),
      ]);
      if (!drained) {
        server.closeAllConnections();
        await closed;
      }
      balanceWatch.stop();
      await queueWatch?.close();
      nightly.stop();
      await smsChannel.close();
      await sessions.close();
      await moneyPath.close();
      await sandbox?.close();
      await paymentSandbox?.close();
    },
  };
}
