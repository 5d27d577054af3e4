import type { Redis } from 'ioredis';
import { RedisOutboxStore } from '../../src/messaging/outbox/store';
import { RedisSessionStore } from '../../src/ussd/engine/store';

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
  await sessions.takeResumable(ref, { minUpdatedAt: 0, machineVersions: ['v1'] });

  // Purchases and outgoing SMS are in the system of record (SQL): no script of theirs is left to run here.

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
