import type { Redis } from 'ioredis';
import { createAgents } from '../../src/agents';
import { RedisOutboxStore } from '../../src/channels/sms/outbound/outbox/store';
import { RedisNotificationStore } from '../../src/purchases/notify/store';
import { notificationId } from '../../src/purchases/notify/types';
import { RedisPurchaseStore } from '../../src/purchases/store';
import { RedisSessionStore } from '../../src/session/store';
import { record } from '../purchases/fixtures';

/**
 * Calls every store operation that runs a Lua script, once, under `prefix`: the Cluster tests
 * watch which keys each script touched (MONITOR), or run them on a real Cluster.
 */
export async function runEveryScript(redis: Redis, prefix: string): Promise<void> {
  const sessions = new RedisSessionStore(redis, prefix);
  const ref = { aggregator: 'africastalking', sessionId: 'ATUid_slots' };
  const lock = await sessions.loadAndLock(ref, 5000);
  if (lock.kind !== 'locked') throw new Error('expected the lock');
  await sessions.saveAndUnlock(ref, lock.token, sessionRecord(), 60);
  const remembered = sessions.recall(ref);
  if (!remembered) throw new Error('expected the saved record to be remembered');
  await sessions.saveIfCurrent(ref, remembered.version, sessionRecord(), 60, 5000);
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
