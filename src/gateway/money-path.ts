import type { Redis } from 'ioredis';
import {
  createSmsSender,
  MemoryOutboxStore,
  RedisOutboxStore,
  smsSenderConfigFrom,
  type OutboxStore,
  type SmsSender,
} from '../channels/sms/outbound';
import type { Config } from '../config';
import { loadLocales, type Locales } from '../i18n';
import { componentLogger } from '../observability/logger';
import { reportRedisError } from '../redis/errors';
import type { ConnectionOptions } from 'bullmq';
import { bullConnectionOptions, bullPrefix, clusterReady, commandConnection } from '../redis/connection';
import type { Metrics } from '../observability/metrics';
import { createPurchaseDesk, type PurchaseDeskOptions, type RunningPurchaseDesk } from '../purchases/desk';
import { RedisDataLossWatch, dataLossKey } from '../redis/data-loss';
import { awaitReplicas, checkDurability } from '../redis/durability';
import { BullmqSmsQueue, createNotifier, InProcessSmsQueue, type SmsRetryPolicy } from '../purchases/notify';
import { DeliveryReports } from '../purchases/notify/deliveries';
import { InboundHub } from '../channels/sms/inbound/hub';
import { MemorySpendStore, RedisSpendStore, Spend } from '../spend';
import { createAgents, type Agents } from '../agents';
import { agentSettlement } from '../agents/settlement';
import { composeAgentReceipt } from '../purchases/notify/compose';
import { notificationId } from '../purchases/notify/types';
import { BullJobQueue, InProcessJobQueue, type JobQueue } from '../purchases/queue';
import { MemoryPurchaseStore, RedisPurchaseStore, type PurchaseStore } from '../purchases/store';
import { MemoryAuditTrail, RedisAuditTrail, type AuditTrail } from '../purchases/care/audit';
import { createPurchaseService, type PurchaseService } from '../vas';
import { instrumentPurchaseService, instrumentPurchaseStore, instrumentSmsSender } from './instrument';

/**
 * The money path: everything behind the channels — the purchase-service client, purchase
 * records and their lifecycle queue, SMS delivery. Shared by the gateway (`npm start`) and the
 * standalone worker (`npm run worker`), so both run the same money path.
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
}

/** A running money path; `close()` stops its workers and releases its connections. */
export interface MoneyPath {
  service: PurchaseService;
  locales: Locales;
  desk: RunningPurchaseDesk;
  /** Shared command connection; undefined in the in-memory mode. */
  redis: Redis | undefined;
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
  /** An agent's receipt of a settled sale again (only the receipt); the same key sends it once. */
  resendReceipt(purchaseId: string, requestKey: string): Promise<void>;
  /** Delivery reports on outgoing SMS (the inbound SMS routes feed them in). */
  deliveries: DeliveryReports;
  /** What the SMS driver's own link receives (SMPP deliver_sm); the SMS channel connects to it. */
  inbound: InboundHub;
  close(): Promise<void>;
}

interface Backing {
  redis: Redis | undefined;
  purchases: PurchaseStore;
  audit: AuditTrail;
  jobs: JobQueue;
  outbox: OutboxStore;
  sms: InProcessSmsQueue | BullmqSmsQueue;
  /** Redis only: the confirm's guards against a Redis that loses writes. */
  guards?: PurchaseDeskOptions['guards'];
  /** Redis only: checks at start that Redis keeps what REDIS_DURABILITY promises. */
  checkDurability?: () => Promise<void>;
  /** Connections of its own beside `redis`, closed with it. */
  extraConnections?: Redis[];
  bull?: { connection: ConnectionOptions; prefix: string };
}

function inMemoryBacking(
  sender: (outbox: OutboxStore) => SmsSender,
  smsRetry: SmsRetryPolicy,
  retentionMs: number,
): Backing {
  const outbox = new MemoryOutboxStore();
  return {
    redis: undefined,
    purchases: new MemoryPurchaseStore(undefined, { retentionMs }),
    audit: new MemoryAuditTrail(),
    jobs: new InProcessJobQueue(),
    outbox,
    sms: new InProcessSmsQueue({ sender: sender(outbox), policy: smsRetry }),
  };
}

function redisBacking(
  redisUrl: string,
  cluster: boolean,
  prefix: string,
  runWorkers: boolean,
  sender: (outbox: OutboxStore) => SmsSender,
  smsRetry: SmsRetryPolicy,
  durability: Config['redisDurability'],
  retentionMs: number,
): Backing {
  const connection = bullConnectionOptions(redisUrl, { cluster });
  const bullKeyPrefix = bullPrefix(prefix, cluster);
  const redis = commandConnection(redisUrl, { cluster });
  const outbox = new RedisOutboxStore(redis, { prefix });
  // WAIT blocks its connection: purchase records get their own so hops never queue behind it.
  const purchaseRedis = durability.mode === 'wait' ? redis.duplicate() : redis;
  if (purchaseRedis !== redis) purchaseRedis.on('error', reportRedisError);
  const dataLoss = new RedisDataLossWatch(redis, dataLossKey(prefix));
  return {
    redis,
    purchases: new RedisPurchaseStore({ redis: purchaseRedis, prefix, retentionMs }),
    audit: new RedisAuditTrail(redis, prefix),
    guards: {
      writesLostBefore: () => dataLoss.writesLostBefore(),
      confirmWriteDurable:
        durability.mode === 'wait'
          ? () => awaitReplicas(purchaseRedis, durability.replicas, durability.timeoutMs)
          : undefined,
    },
    checkDurability: async () => {
      await clusterReady(redis);
      await checkDurability(redis, durability.mode, { replicas: durability.replicas });
    },
    // A Cluster client given to BullMQ is shared by its queues, never closed by them.
    extraConnections: [
      ...(purchaseRedis === redis ? [] : [purchaseRedis]),
      ...(cluster ? [connection as Redis] : []),
    ],
    bull: { connection, prefix: bullKeyPrefix },
    jobs: new BullJobQueue({ connection, prefix: bullKeyPrefix }),
    outbox,
    sms: new BullmqSmsQueue({
      redis,
      connection,
      prefix: bullKeyPrefix,
      keyPrefix: prefix,
      sender: runWorkers ? sender(outbox) : undefined,
      policy: smsRetry,
    }),
  };
}

/** Delete purchase records past their retention (`PURCHASE_RETENTION_DAYS`); part of the workers' sweep. */
async function purgeExpired(desk: RunningPurchaseDesk): Promise<void> {
  const purged = await desk.store.purgeExpired();
  if (purged > 0) log.info('purchase records past their retention deleted', { purged });
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
  const backing = config.redisUrl
    ? redisBacking(
        config.redisUrl,
        config.redisCluster,
        config.redisPrefix,
        runWorkers,
        makeSender,
        config.sms.retry,
        config.redisDurability,
        config.care.retentionMs,
      )
    : inMemoryBacking(makeSender, config.sms.retry, config.care.retentionMs);
  await backing.checkDurability?.();
  // Before this process writes anything: see RedisDataLossWatch.
  await backing.guards?.writesLostBefore?.();

  const agents = createAgents(backing.redis, config.redisPrefix, config);
  const spend = new Spend(
    backing.redis ? new RedisSpendStore(backing.redis, config.redisPrefix) : new MemorySpendStore(),
    config.spend,
  );
  const settlement = agentSettlement(agents);
  const notifier = createNotifier({
    queue: backing.sms,
    locales,
    senderId: config.sms.senderId,
    agents: settlement,
  });
  const desk = createPurchaseDesk({
    store: metrics ? instrumentPurchaseStore(backing.purchases, metrics) : backing.purchases,
    queue: backing.jobs,
    service,
    config,
    notifier,
    guards: backing.guards,
    spend,
    timeZone: config.timeZone,
  });
  if (runWorkers) {
    // One timer sweeps both: purchases left without a job, then outcome SMS left without one.
    await desk.startWorker({
      sweepEveryMs: config.reconcile.sweepEveryMs,
      alsoSweep: async () => {
        await backing.sms.sweep();
        await purgeExpired(desk);
      },
    });
    const resumed = await desk.resumeStuck();
    const smsRevived = await backing.sms.sweep();
    await purgeExpired(desk);
    log.info('purchase workers started', { resumed, smsRevived });
  }

  return {
    service,
    locales,
    desk,
    redis: backing.redis,
    bull: backing.bull,
    audit: backing.audit,
    outbox: backing.outbox,
    sms: backing.sms,
    inbound,
    spend,
    agents,
    async resendReceipt(purchaseId, requestKey) {
      const record = await desk.get(purchaseId);
      const agent = record?.intent.agent;
      if (!record || !agent) return;
      const receipt = composeAgentReceipt(record, locales, await settlement.floatOf(agent.msisdn));
      if (!receipt) return;
      await backing.sms.enqueue({
        id: notificationId(record.id, `receipt:${requestKey}`, receipt.to),
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
      await backing.jobs.close();
      await backing.sms.close();
      await smsSender?.close?.();
      for (const connection of backing.extraConnections ?? []) await connection.quit().catch(() => undefined);
      await backing.redis?.quit().catch(() => undefined);
    },
  };
}
