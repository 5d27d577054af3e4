import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createPurchaseDesk, type RunningPurchaseDesk } from '../../src/purchases/desk';
import { BullJobQueue } from '../../src/purchases/queue';
import { RedisPurchaseStore } from '../../src/purchases/store';
import type { PurchaseRecord } from '../../src/purchases/types';
import { dataLossKey, RedisDataLossWatch } from '../../src/redis/data-loss';
import { startSandbox, TEST_METERS, type RunningSandbox } from '../../src/sandbox';
import { OwnRedisServer } from '../support/redis-server';
import { intent } from './fixtures';
import { makeService, RecordingNotifier, type LedgerRow } from './harness';
import { until } from '../support/wait';

/**
 * Redis loses the `created → confirming` write while the confirm is in flight: it is killed and
 * comes back from a snapshot taken before the confirms (a restart from an RDB file, or a failover
 * to a lagging replica). The restored jobs find their records `created` again. Before the fix
 * they confirmed a second time: 6 debits for 3 intents. Now the lifecycle notices the loss,
 * asks `retry` first and adopts the earlier confirm: one debit each, every token delivered.
 */

const METERS = [TEST_METERS.active, TEST_METERS.active13, TEST_METERS.tariffCharge];
const CONFIRM_SLOW_MS = 1500;

let sandbox: RunningSandbox;
const server = new OwnRedisServer('snapshot');

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
  await server.start();
});
afterAll(async () => {
  await sandbox.close();
  await server.destroy();
});

async function ledger(): Promise<LedgerRow[]> {
  return (await (await fetch(`${sandbox.url}/sandbox/transactions`)).json()) as LedgerRow[];
}

it('a Redis restarted from an older snapshot mid-confirm: one debit per intent, every token delivered', async () => {
  const prefix = `test-loss-${randomUUID().slice(0, 8)}`;
  const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  const queue = new BullJobQueue({
    connection: { url: server.url, maxRetriesPerRequest: null },
    prefix: `${prefix}-bull`,
    retryDelayMs: 50,
  });
  const store = new RedisPurchaseStore({ redis, prefix });
  const watch = new RedisDataLossWatch(redis, dataLossKey(prefix));
  await watch.writesLostBefore(); // as every process does at start
  const notifier = new RecordingNotifier();
  const desk: RunningPurchaseDesk = createPurchaseDesk({
    store,
    queue,
    service: makeService(sandbox.url),
    notifier,
    config: {
      purchaseApi: { confirmTimeoutMs: 5000 } as never,
      reconcile: { baseDelayMs: 50, deadlineMs: 60_000 },
    },
    settings: { inFlightMarginMs: 200, maxDelayMs: 500 },
    guards: { writesLostBefore: () => watch.writesLostBefore() },
  });
  try {
    const created: PurchaseRecord[] = [];
    for (const meter of METERS)
      created.push(await desk.create(intent({ subscriberIdentifier: meter }), `loss-${randomUUID()}`));
    // The snapshot Redis will come back to: records `created`, their confirm jobs waiting.
    await server.snapshot();
    await fetch(`${sandbox.url}/sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ endpoint: 'confirm', fault: 'slow', delayMs: CONFIRM_SLOW_MS, count: 3 }),
    });
    await desk.startWorker();
    // Every confirm is in flight (the service has debited; its answer is slow)…
    await until('three confirms in flight', async () => {
      const records = await Promise.all(created.map((r) => store.get(r.id)));
      return records.every((r) => r?.state === 'confirming');
    });
    // …when Redis dies and comes back without those writes.
    await server.kill();
    await server.start();

    const settled = await until('every purchase told', async () => {
      const records = await Promise.all(created.map((r) => store.get(r.id)));
      return records.every((r) => r?.state === 'succeeded' && r.notifiedAt) ? records : null;
    });
    const rows = await ledger();
    for (const record of created) {
      const debits = rows.filter((row) => row.external_reference === record.externalReference);
      expect(debits).toHaveLength(1);
      expect(settled.find((r) => r?.id === record.id)?.result?.rawToken).toBe(debits[0].token);
      // One outcome SMS with the token, whatever path adopted it.
      expect(notifier.for(record.id).map((c) => c.record.result?.rawToken)).toEqual([debits[0].token]);
    }
  } finally {
    await queue.close();
    redis.disconnect();
  }
});
