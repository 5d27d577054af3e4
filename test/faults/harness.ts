import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { Gateway } from '../../src/gateway/app';
import { SqlPurchaseStore } from '../../src/purchases/store';
import { SETTLED_STATES, type PurchaseRecord } from '../../src/purchases/types';
import type { Database } from '../../src/records/database';
import { openRecords } from '../../src/records/open';
import { SANDBOX_CREDENTIALS, startSandbox, type RunningSandbox } from '../../src/sandbox';
import { hop, ledger, type LedgerRow } from '../e2e/harness';
import { testRecordsEnv } from '../support/database';
import { OwnRedisCluster } from '../support/redis-cluster';
import { OwnRedisServer, type TestPersistence } from '../support/redis-server';
import { testPrefix } from '../support/redis';
import { until } from '../support/wait';
import { RateLimitProxy } from './rate-limit-proxy';
import { SmsSink, type SinkHit } from './sms-sink';

/**
 * The fault suite's world: the sandbox purchase service (behind a proxy that can answer 429),
 * a redis-server of its own (tests kill it), a PostgreSQL schema of its own for the records, and
 * the SMS provider (`SMS_DRIVER=http`); or, for the scale-out suite, a Redis Cluster of three
 * masters in place of the one redis-server (`new World('none', { cluster: true })`). Gateways
 * (in-process or child processes) are started by each test with `gatewayEnv()`. Every fault is
 * judged the same way (`judge`): against the sandbox ledger and what the SMS provider accepted.
 */

export const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts');

/** One line of the faults table. */
export interface FaultRow {
  fault: string;
  /** Purchase intents recorded by the gateway. */
  intents: number;
  /** Ledger rows that debited the account, for those intents' external references. */
  debits: number;
  /** Debited intents whose token reached the subscriber (the SMS provider accepted it). */
  tokensDelivered: number;
  /** Intents that failed without a debit and whose subscriber was told so by SMS. */
  failuresTold: number;
  /** Second debits of one external reference (must be 0). */
  doubleDebits: number;
  /** Accepted copies of one SMS id beyond the first (the at-least-once window). */
  duplicateSms: number;
  /** From the fault's end (last injected failure, outage over) to the last outcome SMS accepted. */
  recoverMs: number;
  note?: string;
}

export class World {
  readonly sink = new SmsSink();
  readonly prefix = testPrefix('faults');
  sandbox!: RunningSandbox;
  proxy!: RateLimitProxy;
  readonly redisServer: OwnRedisServer;
  /** With `{ cluster: true }`: the Redis Cluster every process of this world uses instead. */
  readonly redisCluster: OwnRedisCluster | undefined;
  /** The test's own Redis connection (reconnects after Redis restarts); none on a Cluster. */
  redis!: Redis;
  /** Where every gateway of this world keeps its records, as one deployment's instances do. */
  readonly records = testRecordsEnv('faults');
  private db!: Database;
  /** Reads the purchase records, whatever happens to Redis. */
  store!: SqlPurchaseStore;
  private nextMeter = 0;

  constructor(persistence: TestPersistence = 'none', options: { cluster?: boolean } = {}) {
    this.redisServer = new OwnRedisServer(persistence);
    this.redisCluster = options.cluster ? new OwnRedisCluster() : undefined;
  }

  async start(): Promise<void> {
    this.sandbox = await startSandbox({ port: 0, silent: true, meterLock: false });
    this.proxy = new RateLimitProxy(this.sandbox.url);
    await this.proxy.start();
    await this.sink.start();
    if (this.redisCluster) await this.redisCluster.start();
    else {
      await this.redisServer.start();
      this.redis = new Redis(this.redisServer.url, { maxRetriesPerRequest: 1 });
      this.redis.on('error', () => undefined);
    }
    this.db = await openRecords({
      url: this.records.env.DATABASE_URL,
      schema: this.records.env.DATABASE_SCHEMA,
      dataDir: '',
    });
    this.store = new SqlPurchaseStore({ db: this.db });
  }

  async close(): Promise<void> {
    this.redis?.disconnect();
    await this.sink.close();
    await this.proxy.close();
    await this.sandbox.close();
    await this.redisServer.destroy();
    await this.redisCluster?.destroy();
    await this.db.close();
    await this.records.drop();
  }

  /** The gateway's environment: this world's Redis, service (through the proxy) and SMS provider. */
  gatewayEnv(extra: Record<string, string> = {}): Record<string, string> {
    return {
      ...(this.redisCluster
        ? { REDIS_URL: this.redisCluster.url, REDIS_CLUSTER: 'true' }
        : { REDIS_URL: this.redisServer.url }),
      REDIS_PREFIX: this.prefix,
      ...this.records.env,
      PURCHASE_API_BASE_URL: this.proxy.url,
      PURCHASE_API_CLIENT_ID: SANDBOX_CREDENTIALS.clientId,
      PURCHASE_API_CLIENT_SECRET: SANDBOX_CREDENTIALS.clientSecret,
      PURCHASE_API_USERNAME: SANDBOX_CREDENTIALS.username,
      PURCHASE_API_PASSWORD: SANDBOX_CREDENTIALS.password,
      PURCHASE_API_ORG_CODE: SANDBOX_CREDENTIALS.orgCode,
      // Short timeouts and retry delays so a fault costs seconds, not the production minutes.
      PURCHASE_API_TIMEOUT_MS: '1500',
      PURCHASE_API_CONFIRM_TIMEOUT_MS: '1500',
      RECONCILE_BASE_DELAY_MS: '100',
      PURCHASE_SWEEP_INTERVAL_MS: '1000',
      USSD_HOP_BUDGET_MS: '6000',
      SMS_DRIVER: 'http',
      SMS_HTTP_URL: this.sink.url,
      SMS_RETRY_BASE_MS: '100',
      SMS_RETRY_MAX_DELAY_MS: '1000',
      SMS_RETRY_AFTER_MAX_MS: '3000',
      LOG_LEVEL: 'error',
      ...extra,
    };
  }

  /** A meter number no other intent of this run uses (the sandbox runs without its meter lock). */
  meter(): string {
    this.nextMeter += 1;
    return String(50_000_000_000 + process.pid * 1000 + this.nextMeter);
  }

  /** Arms a sandbox fault (`POST /sandbox/faults`). */
  async arm(endpoint: string, fault: string, count: number, delayMs?: number): Promise<void> {
    const response = await fetch(`${this.sandbox.url}/sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ endpoint, fault, count, ...(delayMs !== undefined && { delayMs }) }),
    });
    if (response.status !== 201) throw new Error(`arming ${fault} on ${endpoint}: ${response.status}`);
  }

  /** Resolves with the moment every armed sandbox fault has been used up (polled). */
  async faultsSpent(): Promise<number> {
    await until(
      'the armed faults to be used up',
      async () => {
        const armed = (await (await fetch(`${this.sandbox.url}/sandbox/faults`)).json()) as object;
        return Object.keys(armed).length === 0;
      },
      { timeoutMs: 60_000, everyMs: 25 },
    );
    return Date.now();
  }

  /** The purchase records of `phone`. */
  async purchasesOf(phone: string): Promise<PurchaseRecord[]> {
    return this.store.listByMsisdn(phone);
  }
}

/**
 * Distinct subscriber numbers per intent, each a valid Botswana mobile number (71–74 and six
 * digits: 70 is no mobile range, which the gateway refuses, and the payment sandbox's test payers
 * are 759…). Derived from the pid so two runs on one machine differ.
 */
let nextPhone = 0;
export function phoneFor(): string {
  nextPhone += 1;
  const n = process.pid * 131 + nextPhone * 7919;
  return `2677${1 + (n % 4)}${String(Math.floor(n / 4) % 1_000_000).padStart(6, '0')}`;
}

/** How long a subscriber whose dialogue was cut waits before dialling again. */
const REDIAL_MS = 250;

/** Where each hop of a dialogue goes (one gateway, or several behind a load balancer). */
export type Route = (hopIndex: number) => Pick<Gateway, 'url'>;

/** What `buy` may be told besides the defaults (BWP 100 of electricity for this phone). */
export interface BuyOptions {
  attempts?: number;
  label?: string;
  meter?: string;
  /** What is typed after the dial, given the meter (an agent's sale: PIN, menu, meter, …). */
  inputs?: (meter: string) => string[];
  /** Whose purchase records show the sale was made (default: `phone`'s; an agent's customer). */
  recordedFor?: string;
  /** Told each hop answered (its duration, and whether the gateway answered 200). */
  onHop?: (ms: number, ok: boolean) => void;
}

/**
 * One subscriber buying BWP 100 of electricity over USSD, dialling again (a new session) while
 * the gateway has no purchase for them: a dialogue cut by a fault is what a subscriber redials.
 * Resolves with the meter bought for.
 */
export async function buy(
  world: World,
  route: Route,
  phone: string,
  options: BuyOptions = {},
): Promise<string> {
  const meter = options.meter ?? world.meter();
  const attempts = options.attempts ?? 80;
  // "Send the token to": 1 This phone (asked for electricity unless USSD_ASK_TOKEN_RECIPIENT=false).
  const inputs = ['', ...(options.inputs?.(meter) ?? ['1', meter, '1', '100', '1'])];
  let lastScreen = '';
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const session = `${options.label ?? 'f'}-${phone}-${attempt}`;
    try {
      for (let i = 0; i < inputs.length; i += 1) {
        const began = Date.now();
        const reply = await hop(route(i), session, phone, inputs.slice(1, i + 1).join('*'));
        options.onHop?.(Date.now() - began, reply.status === 200);
        lastScreen = reply.body;
        if (reply.end) break;
      }
    } catch {
      // The gateway was away (killed, restarting): the subscriber dials again.
      options.onHop?.(0, false);
    }
    if ((await world.purchasesOf(options.recordedFor ?? phone)).length > 0) return meter;
    // A subscriber whose dialogue was cut dials again a moment later.
    await new Promise((resolve) => setTimeout(resolve, REDIAL_MS));
  }
  throw new Error(
    `no purchase recorded for ${phone} after ${attempts} dialogues; the last screen: ${lastScreen}`,
  );
}

/** A settled intent and what reached its subscriber. */
interface Told {
  record: PurchaseRecord;
  hits: SinkHit[];
}

function digits(text: string): string {
  return text.replace(/\D/g, '');
}

/**
 * Waits until every intent of `phones` is settled and its outcome SMS was accepted by the
 * provider, then asserts the two money properties and returns the table row:
 * - confirm at most once per intent: never two debits for one external reference;
 * - no token lost: every debit's token reached its subscriber, every failure was told.
 */
export async function judge(
  world: World,
  fault: string,
  phones: string[],
  faultEndedAt: () => number,
  options: { timeoutMs?: number; note?: string; allowDuplicateSms?: boolean } = {},
): Promise<FaultRow> {
  const told = await until(
    `${fault}: every intent settled and told`,
    async () => {
      const rows = await ledger(world.sandbox.url);
      const all: Told[] = [];
      for (const phone of phones) {
        const records = await world.purchasesOf(phone);
        if (records.length === 0) return null;
        for (const record of records) {
          if (!SETTLED_STATES.includes(record.state)) return null;
          const hits = world.sink.acceptedTo(phone);
          const token = debitOf(rows, record)?.token;
          // A debit's SMS must carry its token; a failure's any accepted outcome SMS.
          const delivered = token
            ? hits.some((hit) => digits(hit.message).includes(digits(token)))
            : hits.some((hit) => hit.id.startsWith(encodeURIComponent(record.id)));
          if (!delivered) return null;
          all.push({ record, hits });
        }
      }
      return all;
    },
    { timeoutMs: options.timeoutMs ?? 60_000, everyMs: 50 },
  );
  const rows = await ledger(world.sandbox.url);
  let debits = 0;
  let doubleDebits = 0;
  let tokensDelivered = 0;
  let failuresTold = 0;
  let lastDelivery = 0;
  const accepted = new Map<string, number>();
  for (const { record, hits } of told) {
    const mine = rows.filter((row) => row.external_reference === record.externalReference && debited(row));
    debits += Math.min(mine.length, 1);
    doubleDebits += Math.max(mine.length - 1, 0);
    const ownHits = hits.filter((hit) => hit.id.startsWith(encodeURIComponent(record.id)));
    for (const hit of ownHits) accepted.set(hit.id, (accepted.get(hit.id) ?? 0) + 1);
    if (mine[0]?.token) {
      const tokenHit = ownHits.find((hit) => digits(hit.message).includes(digits(mine[0].token!)));
      if (tokenHit) tokensDelivered += 1;
      lastDelivery = Math.max(lastDelivery, tokenHit?.at ?? 0);
    } else if (ownHits.length > 0) {
      failuresTold += 1;
      lastDelivery = Math.max(lastDelivery, ownHits[0].at);
    }
  }
  const duplicateSms = [...accepted.values()].reduce((sum, n) => sum + n - 1, 0);
  const row: FaultRow = {
    fault,
    intents: told.length,
    debits,
    tokensDelivered,
    failuresTold,
    doubleDebits,
    duplicateSms,
    recoverMs: Math.max(0, lastDelivery - faultEndedAt()),
    ...(options.note !== undefined && { note: options.note }),
  };
  expect({ fault, doubleDebits }).toEqual({ fault, doubleDebits: 0 });
  expect({ fault, tokensDelivered }).toEqual({ fault, tokensDelivered: debits });
  expect({ fault, told: tokensDelivered + failuresTold }).toEqual({ fault, told: told.length });
  if (!options.allowDuplicateSms) expect({ fault, duplicateSms }).toEqual({ fault, duplicateSms: 0 });
  return row;
}

function debited(row: LedgerRow): boolean {
  return row.debited_minor > 0;
}

function debitOf(rows: LedgerRow[], record: PurchaseRecord): LedgerRow | undefined {
  return rows.find((row) => row.external_reference === record.externalReference && debited(row));
}

/** Keeps one file's rows; `write()` (in afterAll) leaves them for the table printed at the end. */
export class FaultTable {
  readonly rows: FaultRow[] = [];

  constructor(private readonly file: string) {}

  add(row: FaultRow): void {
    this.rows.push(row);
  }

  write(): void {
    const dir = path.join(ARTIFACTS, 'faults');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${path.basename(this.file)}.json`), JSON.stringify(this.rows, null, 2));
  }
}
