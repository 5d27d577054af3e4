import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { RedisOutboxStore } from '../../src/channels/sms/outbound/outbox/store';
import { RedisNotificationStore } from '../../src/purchases/notify/store';
import { notificationId } from '../../src/purchases/notify/types';
import { RedisPurchaseStore } from '../../src/purchases/store';
import { hashSlot } from '../../src/redis/keys';
import { numKeysOf } from '../../src/redis/scripts';
import { RedisSessionStore } from '../../src/session/store';
import { createAgents } from '../../src/agents';
import { record } from '../purchases/fixtures';
import { OwnRedisServer } from '../support/redis-server';

/**
 * Every multi-key Lua script must touch keys of one Redis Cluster slot. This runs every store
 * operation that calls a script against the test Redis, watches the EVAL/EVALSHA commands
 * that reach it (MONITOR), and checks each call's keys; every multi-key script file under
 * src/ must have been seen.
 */

const SRC = path.resolve(__dirname, '../../src');

function luaFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return luaFiles(full);
    return entry.name.endsWith('.lua') ? [full] : [];
  });
}

const multiKeyScripts = new Map(
  luaFiles(SRC)
    .filter((file) => numKeysOf(path.basename(file, '.lua')) > 1)
    .map((file) => [
      createHash('sha1').update(readFileSync(file, 'utf8')).digest('hex'),
      path.relative(SRC, file),
    ]),
);

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' };

/** MONITOR prints arguments escaped (`\n`, `\"`, `\xHH`): the script text as sent. */
function unescapeMonitor(text: string): string {
  return text.replace(/\\(x[0-9a-f]{2}|.)/g, (_all, code: string) =>
    code.length === 3 ? String.fromCharCode(parseInt(code.slice(1), 16)) : (ESCAPES[code] ?? code),
  );
}

interface ScriptCall {
  script: string;
  keys: string[];
}

/**
 * A redis-server of this test's own: MONITOR sees every client of a server, and on the shared
 * one the other suites' traffic (BullMQ's) would flood it.
 */
const server = new OwnRedisServer();
let test: { redis: Redis; prefix: string };
let monitor: Redis;
const calls: ScriptCall[] = [];

beforeAll(async () => {
  await server.start();
  test = { redis: new Redis(server.url), prefix: 'slots' };
  monitor = await test.redis.duplicate().monitor();
  monitor.on('monitor', (_time: string, args: string[]) => {
    const [command, body, numKeys, ...rest] = args;
    const lower = command.toLowerCase();
    if (lower !== 'eval' && lower !== 'evalsha') return;
    const sha = lower === 'eval' ? createHash('sha1').update(unescapeMonitor(body)).digest('hex') : body;
    const script = multiKeyScripts.get(sha);
    const keys = rest.slice(0, Number(numKeys));
    if (script && keys.every((key) => key.startsWith(test.prefix))) calls.push({ script, keys });
  });
});

afterAll(async () => {
  monitor.disconnect();
  test.redis.disconnect();
  await server.destroy();
});

async function runEveryScript(): Promise<void> {
  const { redis, prefix } = test;
  const sessions = new RedisSessionStore(redis, prefix);
  const ref = { aggregator: 'africastalking', sessionId: 'ATUid_slots' };
  const lock = await sessions.loadAndLock(ref, 5000);
  if (lock.kind !== 'locked') throw new Error('expected the lock');
  await sessions.saveAndUnlock(ref, lock.token, sessionRecord(), 60);
  await sessions.startMsisdnSession('26771234567', ref, 60);
  await sessions.takeResumable(ref, { minUpdatedAt: 0, machineVersion: 'v1' });

  const purchases = new RedisPurchaseStore({ redis, prefix });
  const created = record({ intent: { ...record().intent, requesterMsisdn: '26770000001' } });
  await purchases.create(created);
  await purchases.transition(created.id, ['created'], 'confirming', created.version);
  // Settled now, purged by a clock past its (1 ms) retention.
  const purging = new RedisPurchaseStore({
    redis,
    prefix,
    retentionMs: 1,
    clock: () => new Date(Date.now() + 60_000),
  });
  const now = new Date().toISOString();
  await purging.transition(created.id, ['confirming'], 'succeeded', created.version + 1, {
    settledAt: now,
    notifiedAt: now,
  });
  if ((await purging.purgeExpired()) !== 1) throw new Error('expected the purge');
  await purchases.create(record());
  await purchases.reindex();

  const notifications = new RedisNotificationStore(redis, { prefix });
  const id = notificationId(created.id, 'settled', '26771234567');
  await notifications.create(
    { id, purchaseId: created.id, to: '26771234567', message: 'Token: 1111' },
    new Date(),
  );

  const outbox = new RedisOutboxStore(redis, { prefix });
  await outbox.add({
    id: 'o-1',
    to: '26771234567',
    from: null,
    message: 'hello',
    parts: 1,
    encoding: 'GSM-7',
    createdAt: new Date().toISOString(),
    purchaseId: null,
  });

  const agents = createAgents(redis, prefix, {
    agents: { maxSaleMinor: 10_000, maxDayValueMinor: 100_000, maxDayCount: 10, currency: 'BWP' },
    timeZone: 'Africa/Gaborone',
    defaultRegion: 'BW',
    defaultLanguage: 'en',
  });
  const { agent } = await agents.registry.add({
    msisdn: '26771234567',
    name: 'A',
    funding: { kind: 'float' },
  });
  await agents.float.credit(agent, { amount: { currency: 'BWP', minor: 5_000 }, reference: 'R-1' });
  await agents.float.reserve(agent, 'sale-1', 1_000);
  await agents.float.reserve(agent, 'sale-2', 1_000);
  await agents.float.settle(agent.msisdn, 'sale-1');
  await agents.float.release(agent.msisdn, 'sale-2');
}

function sessionRecord() {
  const now = Date.now();
  return {
    machineVersion: 'v1',
    snapshot: { value: 'menu' },
    msisdn: '26771234567',
    serviceCode: '*384#',
    lastText: '',
    lastRequestKey: 'k',
    lastReply: { text: 'Menu', end: false },
    page: 1,
    pages: 1,
    optionIds: [],
    language: 'en-BW',
    status: 'active' as const,
    hops: 1,
    createdAt: now,
    updatedAt: now,
  };
}

describe('multi-key scripts and Redis Cluster', () => {
  it('every multi-key script touches keys of one hash slot', async () => {
    await runEveryScript();
    // MONITOR reports a command after it ran: wait until every script was seen.
    const expected = new Set(multiKeyScripts.values());
    for (let i = 0; i < 100 && new Set(calls.map((c) => c.script)).size < expected.size; i += 1)
      await test.redis.ping();
    expect(new Set(calls.map((c) => c.script))).toEqual(expected);
    for (const call of calls) {
      const slots = new Set(call.keys.map(hashSlot));
      expect({ script: call.script, keys: call.keys, slots: slots.size }).toEqual({
        script: call.script,
        keys: call.keys,
        slots: 1,
      });
    }
  });
});
