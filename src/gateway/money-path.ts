import type { Redis } from 'ioredis';
import {
  createSmsSender,
  MemoryOutboxStore,
  RedisOutboxStore,
  smsSenderConfigFrom,
  type OutboxStore,
  type SmsSender,
} from '../messaging';
import type { Config } from '../config';
import { resolve } from 'node:path';
import { IN_MEMORY } from '../records/settings';
import { FileNoticeSpool, MemoryNoticeSpool, RedisNoticeSpool, type NoticeSpool } from '../payments/spool';
import { loadLocales, type Locales } from '../i18n';
import { componentLogger } from '../observability/logger';
import type { ConnectionOptions } from 'bullmq';
import { bullConnectionOptions, bullPrefix, clusterReady, commandConnection } from '../redis/connection';
import type { Metrics } from '../observability/metrics';
import { createPurchaseDesk, type RunningPurchaseDesk } from '../purchases/desk';
import { messageId } from '../messaging/message';
import { BullmqSmsQueue, DeliveryReports, InProcessSmsQueue, type SmsRetryPolicy } from '../messaging/queue';
import { SqlMessageStore } from '../messaging/store/sql';
import type { MessageStore } from '../messaging/store/store';
import { createNotifier } from '../purchases/notify';
import { InboundHub } from '../sms/inbound/hub';
import { Spend } from '../spend';
import { SqlSpendStore } from '../spend/sql';
import { createAgents, type Agents } from '../agents';
import { composeAgentReceipt } from '../purchases/notify/compose';
import { BullJobQueue, InProcessJobQueue, type JobQueue } from '../queue';
import { SqlPurchaseStore } from '../purchases/store/sql';
import type { AuditTrail } from '../purchases/care/audit';
import { SqlAuditTrail } from '../purchases/care/audit-sql';
import type { Database } from '../records/database';
import { openRecords } from '../records/open';
import { AgentSide } from '../sales/agent-side';
import { releaseOrphanHolds } from '../sales/orphan-holds';
import { SqlSavedMeters } from '../subscribers/saved-meters';
import { subscriberServices, type SubscriberServices } from '../subscribers';
import type { PurchaseSettlement } from '../purchases/hand-over';
import { createPurchaseService, type PurchaseService } from '../vas';
import { instrumentPurchaseService, instrumentPurchaseStore, instrumentSmsSender } from './instrument';
import type { PaymentProvider } from '../payments/port';
import type { PaymentLifecycleSettings } from '../payments/lifecycle/machine';
import type { LifecycleSettings } from '../purchases/lifecycle/machine';
import { paidWithReader, paymentParts, startPaymentLifecycle, type PaymentPath } from './payments';
import { SqlPaymentStore } from '../payments/store/sql';
import { AgentTopUps } from '../agents/top-ups';
import { depositTeller } from '../agents/deposit-teller';
import { recordsRetention } from './retention';
import type { AgentDeskOptions } from '../agents/admin/desk';

/**
 * The money path: everything behind the channels — the purchase-service client, the system of
 * record (purchases, agents and floats, spend, the audit trail: PostgreSQL or the embedded
 * PGlite), the lifecycle queue, SMS delivery. Shared by the gateway (`npm start`) and the
 * standalone worker (`npm run worker`), so both run the same money path. Redis holds only what
 * may be lost: the queues' jobs are found again by the sweep, which reads the records.
 */

const log = componentLogger('money-path');

/** How a process runs the money path. */
export interface MoneyPathOptions {
  /** Base URL of the purchase service (the embedded sandbox's in the default mode). */
  purchaseServiceUrl: string;
  /** Consume lifecycle and SMS jobs in this process (always true without Redis). */
  runWorkers: boolean;
  /** When given, the purchase service, purchase store and SMS sender record into it. */
  metrics?: Metrics;
  /** Message catalogues, when the caller has loaded them already. */
  locales?: Locales;
  /** The system of record, already open (its owner closes it); else opened from `config.records`. */
  records?: Database;
  /** Who collects the buyer's money (src/gateway/payments.ts); null or absent: nothing is collected. */
  paymentProvider?: PaymentProvider | null;
  /** Overrides of the payment lifecycle's timings (tests shorten the status polls). */
  paymentLifecycle?: Partial<PaymentLifecycleSettings>;
  /** Overrides of the purchase lifecycle's timings (tests shorten the confirm's in-flight margin). */
  purchaseLifecycle?: Partial<LifecycleSettings>;
}

/** A running money path; `close()` stops its workers and releases its connections. */
export interface MoneyPath {
  service: PurchaseService;
  locales: Locales;
  desk: RunningPurchaseDesk;
  /** Shared command connection; undefined in the in-memory mode. */
  redis: Redis | undefined;
  /** The system of record. */
  records: Database;
  /** How BullMQ queues reach Redis and their key prefix (Redis mode only): the SMS channel's too. */
  bull: { connection: ConnectionOptions; prefix: string } | undefined;
  outbox: OutboxStore;
  sms: InProcessSmsQueue | BullmqSmsQueue;
  /** Customer care's audit trail (who resolved, reconciled or revealed what). */
  audit: AuditTrail;
  /** The operator's spending rules (amount ranges, blocklist, daily limits) for every channel. */
  spend: Spend;
  /** Field agents: the registry (PINs, lockout) and the float with its daily limits. */
  agents: Agents;
  /** An agent's side of a sale (check, hold, release; settled by the purchase lifecycle). */
  agentSide: AgentSide;
  /** An agent's receipt of a settled sale again (only the receipt); the same key sends it once. */
  resendReceipt(purchaseId: string, requestKey: string): Promise<void>;
  /** The payment step (a subscriber pays before the confirm); null when nothing is collected. */
  payments: PaymentPath | null;
  /** Agents' own float top-ups by payment (TOPUP); null when nothing is collected. */
  agentTopUps: AgentTopUps | null;
  /** An SMS to an agent about its float (no purchase behind it), sent once per id. */
  tellAgent(sms: { id: string; to: string; message: string }): Promise<void>;
  /** Tells an agent its bank deposit was approved or rejected (the operator desk's hook). */
  depositTold: Required<AgentDeskOptions>['onDepositDecided'];
  /** Delivery reports on outgoing SMS (the inbound SMS routes feed them in). */
  deliveries: DeliveryReports;
  /** A repeat buyer's services: saved meters, My purchases, the notice, cases (src/subscribers). */
  subscribers: SubscriberServices;
  /** What the SMS driver's own link receives (SMPP deliver_sm); the SMS channel connects to it. */
  inbound: InboundHub;
  close(): Promise<void>;
}

/**
 * Where a provider's callback or a push's answer waits while PostgreSQL is away: Redis, shared by
 * every gateway and worker, when the money path has it; else a folder beside the embedded
 * records (`<DATA_DIR>/spool/payments`); in memory with the records (`memory://`).
 */
function noticeSpool(config: Config, backing: Backing): NoticeSpool {
  if (backing.redis) return new RedisNoticeSpool(backing.redis, config.redisPrefix);
  const { dataDir } = config.records;
  if (dataDir === undefined || dataDir === IN_MEMORY) return new MemoryNoticeSpool();
  return new FileNoticeSpool(resolve(dataDir, 'spool', 'payments'));
}

/** What may be lost: jobs, SMS queue, outbox; in Redis, or in this process without it. */
interface Backing {
  redis: Redis | undefined;
  jobs: JobQueue;
  outbox: OutboxStore;
  sms: InProcessSmsQueue | BullmqSmsQueue;
  /** Redis Cluster only: checks at start that every slot is served. */
  ready?: () => Promise<void>;
  /** Connections of its own beside `redis`, closed with it. */
  extraConnections?: Redis[];
  bull?: { connection: ConnectionOptions; prefix: string };
}

function inMemoryBacking(
  sender: (outbox: OutboxStore) => SmsSender,
  smsRetry: SmsRetryPolicy,
  notifications: MessageStore,
): Backing {
  const outbox = new MemoryOutboxStore();
  return {
    redis: undefined,
    jobs: new InProcessJobQueue(),
    outbox,
    sms: new InProcessSmsQueue({ sender: sender(outbox), policy: smsRetry, store: notifications }),
  };
}

function redisBacking(
  redisUrl: string,
  cluster: boolean,
  prefix: string,
  runWorkers: boolean,
  sender: (outbox: OutboxStore) => SmsSender,
  smsRetry: SmsRetryPolicy,
  notifications: MessageStore,
): Backing {
  const connection = bullConnectionOptions(redisUrl, { cluster });
  const bullKeyPrefix = bullPrefix(prefix, cluster);
  const redis = commandConnection(redisUrl, { cluster });
  const outbox = new RedisOutboxStore(redis, { prefix });
  return {
    redis,
    ready: () => clusterReady(redis),
    // A Cluster client given to BullMQ is shared by its queues, never closed by them.
    extraConnections: cluster ? [connection as Redis] : [],
    bull: { connection, prefix: bullKeyPrefix },
    jobs: new BullJobQueue({ connection, prefix: bullKeyPrefix }),
    outbox,
    sms: new BullmqSmsQueue({
      connection,
      prefix: bullKeyPrefix,
      sender: runWorkers ? sender(outbox) : undefined,
      policy: smsRetry,
      store: notifications,
    }),
  };
}

/** Build the money path from config; with `runWorkers` (or without Redis) it also consumes jobs. */
export async function startMoneyPath(config: Config, options: MoneyPathOptions): Promise<MoneyPath> {
  const { metrics } = options;
  const vas = createPurchaseService({ ...config.purchaseApi, baseUrl: options.purchaseServiceUrl });
  const service = metrics ? instrumentPurchaseService(vas, metrics) : vas;
  const locales = options.locales ?? loadLocales();
  let smsSender: SmsSender | undefined;
  const inbound = new InboundHub();
  const makeSender = (outbox: OutboxStore): SmsSender => {
    const driver = createSmsSender(smsSenderConfigFrom(config.sms), { outbox, inbound });
    smsSender = metrics ? instrumentSmsSender(driver, metrics) : driver;
    return smsSender;
  };
  const runWorkers = options.runWorkers || !config.redisUrl;
  const records = options.records ?? (await openRecords(config.records));
  // Outgoing SMS carry tokens: their records are kept with the purchases, their jobs in the queue.
  const notifications = new SqlMessageStore(records);
  const backing = config.redisUrl
    ? redisBacking(
        config.redisUrl,
        config.redisCluster,
        config.redisPrefix,
        runWorkers,
        makeSender,
        config.sms.retry,
        notifications,
      )
    : inMemoryBacking(makeSender, config.sms.retry, notifications);
  await backing.ready?.();
  const purchases = new SqlPurchaseStore({ db: records, retentionMs: config.care.retentionMs });
  const audit = new SqlAuditTrail(records);

  const agents = createAgents(records, config);
  const spend = new Spend(new SqlSpendStore(records), config.spend);
  const agentSide = new AgentSide(agents, config.timeZone);
  const floatOf = async (msisdn: string) => (await agentSide.floatOf(msisdn))?.available ?? null;
  const provider = options.paymentProvider ?? null;
  const paying = provider ? paymentParts({ records, bull: backing.bull, metrics }) : null;
  const savedMeters = new SqlSavedMeters(records);
  const notifier = createNotifier({
    queue: backing.sms,
    locales,
    senderId: config.sms.senderId,
    floatOf,
    commissionOf: (record) => agentSide.saleCommission(record),
    paidWith: paying?.paidWith ?? paidWithReader(new SqlPaymentStore({ db: records })),
    care: config.care.contact,
  });
  metrics?.watchUndeliveredSms(() => backing.sms.store.countUndelivered());
  const desk = createPurchaseDesk({
    store: metrics ? instrumentPurchaseStore(purchases, metrics) : purchases,
    queue: backing.jobs,
    service,
    config,
    settings: options.purchaseLifecycle,
    notifier,
    // The lifecycle settles an agent's float, or looks at the buyer's refund, when the sale settles;
    // a succeeded purchase's meter is remembered for its buyer.
    settlement: settleInTurn(agentSide, paying?.settlement, savedMeters),
    spend,
    timeZone: config.timeZone,
  });
  // An SMS to an agent about its float (no purchase behind it), sent once per id.
  const tellAgent = async ({ id, to, message }: { id: string; to: string; message: string }) => {
    await backing.sms.enqueue({
      id: messageId(id, to),
      kind: 'sms-reply',
      to,
      message,
      ...(config.sms.senderId !== undefined && { from: config.sms.senderId }),
    });
  };
  const agentTopUps =
    provider && paying ? new AgentTopUps({ agents, store: paying.store, locales, send: tellAgent }) : null;
  const spool = noticeSpool(config, backing);
  if (provider && paying) metrics?.watchSpooledNotices(() => spool.count());
  const payments =
    provider && paying
      ? startPaymentLifecycle({
          provider,
          parts: paying,
          desk,
          sms: backing.sms,
          senderId: config.sms.senderId,
          locales,
          care: config.care.contact,
          settings: options.paymentLifecycle,
          spool,
          ...(agentTopUps && { onTopUp: agentTopUps.settled }),
        })
      : null;
  if (payments) agentTopUps?.attach(payments.lifecycle);
  const subscribers = subscriberServices({
    records,
    desk,
    sms: backing.sms,
    locales,
    audit,
    senderId: config.sms.senderId,
    care: config.care.contact,
    delayNoticeMs: config.reconcile.delayNoticeMs,
    savedMeters,
  });
  if (runWorkers) {
    const applyRetention = recordsRetention(records, desk.store, config.records);
    if (payments && paying) await paying.queue.start(payments.lifecycle.handle);
    // One timer sweeps them all: purchases left without a job, payments, then outcome SMS.
    await desk.startWorker({
      sweepEveryMs: config.reconcile.sweepEveryMs,
      alsoSweep: async () => {
        await subscribers.delayNotices.sweep();
        await payments?.sweep();
        await backing.sms.sweep();
        await releaseOrphanHolds(records, agents.float, new Date());
        await applyRetention();
      },
    });
    const resumed = await desk.resumeStuck();
    await subscribers.delayNotices.sweep();
    await payments?.sweep();
    const smsRevived = await backing.sms.sweep();
    await applyRetention();
    log.info('purchase workers started', { resumed, smsRevived });
  }

  return {
    service,
    locales,
    desk,
    redis: backing.redis,
    records,
    bull: backing.bull,
    audit,
    outbox: backing.outbox,
    sms: backing.sms,
    inbound,
    spend,
    agents,
    agentSide,
    subscribers,
    payments,
    agentTopUps,
    tellAgent,
    depositTold: depositTeller({ registry: agents.registry, float: agents.float, locales, send: tellAgent }),
    async resendReceipt(purchaseId, requestKey) {
      const record = await desk.get(purchaseId);
      const agent = record?.intent.agent;
      if (!record || !agent) return;
      const receipt = composeAgentReceipt(
        record,
        locales,
        await floatOf(agent.msisdn),
        await agentSide.saleCommission(record),
      );
      if (!receipt) return;
      await backing.sms.enqueue({
        id: messageId(record.id, `receipt:${requestKey}`, receipt.to),
        kind: receipt.kind,
        purchaseId: record.id,
        to: receipt.to,
        message: receipt.message,
        ...(config.sms.senderId !== undefined && { from: config.sms.senderId }),
      });
    },
    deliveries: new DeliveryReports(backing.sms.store, backing.sms, config.sms.retry, (state) =>
      metrics?.smsDeliveryReports.inc({ state }),
    ),
    async close() {
      desk.stopSweep();
      // What is still spooled waits for the next process: the spool outlives this one.
      payments?.lifecycle.stopReplay();
      subscribers.notices.stop();
      await backing.jobs.close();
      await paying?.queue.close();
      await backing.sms.close();
      await smsSender?.close?.();
      for (const connection of backing.extraConnections ?? []) await connection.quit().catch(() => undefined);
      await backing.redis?.quit().catch(() => undefined);
      if (!options.records) await records.close();
    },
  };
}

/**
 * The settlement hooks in turn (each idempotent per purchase); the saved meters' never throws.
 * Those with rows of their own (`settledOn`) write them on the success's transaction when given one.
 */
function settleInTurn(...hooks: Array<PurchaseSettlement | undefined>): PurchaseSettlement {
  const present = hooks.filter((hook): hook is PurchaseSettlement => hook !== undefined);
  return {
    async settled(record) {
      for (const hook of present) await hook.settled(record);
    },
    async settledOutside(record) {
      for (const hook of present)
        if (hook.settledOn) await hook.settledOutside?.(record);
        else await hook.settled(record);
    },
    async settledOn(record, tx) {
      for (const hook of present) await hook.settledOn?.(record, tx);
    },
  };
}
