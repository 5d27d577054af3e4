import { SqlMessageStore } from '../../src/messaging/store/sql';
import { openPostgres } from '../../src/records/database';
import { NodeProcess } from '../support/node-process';
import { until } from '../support/wait';
import { buy, FaultTable, judge, phoneFor, World } from './harness';

/**
 * The gateway and the purchase worker as real processes, killed with SIGKILL at the worst
 * moments and started again: mid-confirm (the service has debited, its answer is on its way),
 * mid-SMS (the provider holds the request), and inside the at-least-once window (the provider
 * accepted the SMS, `sent` is not written yet). BullMQ notices the dead worker's jobs (stalled)
 * and the restarted process finishes them: one debit per intent, every token delivered.
 */

const INTENTS = 3;
/** The service answers confirms this late, and the client waits longer: the kill lands mid-confirm. */
const CONFIRM_SLOW_MS = 3000;
const PATIENT = { PURCHASE_API_CONFIRM_TIMEOUT_MS: '6000' };
/** BullMQ finds a dead worker's job after its 30 s lock, at its next 30 s stalled check: up to ~60 s. */
const STALLED = { timeoutMs: 150_000 };

const world = new World();
const table = new FaultTable(__filename);
const processes: NodeProcess[] = [];

beforeAll(() => world.start());
afterAll(async () => {
  table.write();
  for (const process of processes) await process.stop();
  await world.close();
});

function started(entry: 'src/main.ts' | 'src/worker.ts', env: Record<string, string> = {}): NodeProcess {
  const process = new NodeProcess(entry, world.gatewayEnv(env));
  processes.push(process);
  return process;
}

/** Resolves once `count` more confirms have reached the service (in flight there: it sleeps on them). */
async function confirmsAtTheService(count: number, since: number): Promise<void> {
  await until(`${count} confirms at the service`, () => confirmsSent() - since >= count);
}

function confirmsSent(): number {
  return world.proxy.forwarded.get('/public/v1/purchases/confirm') ?? 0;
}

async function allIn(phones: string[], state: string): Promise<boolean> {
  for (const phone of phones) {
    const [record] = await world.purchasesOf(phone);
    if (record?.state !== state) return false;
  }
  return true;
}

it('the gateway (running the workers) killed mid-confirm, then restarted', async () => {
  const gateway = started('src/main.ts', PATIENT);
  await gateway.start();
  const phones = Array.from({ length: INTENTS }, () => phoneFor());
  await world.arm('confirm', 'slow', INTENTS, CONFIRM_SLOW_MS);
  const sent = confirmsSent();
  await Promise.all(phones.map((phone) => buy(world, () => gateway, phone)));
  await until('every confirm in flight', () => allIn(phones, 'confirming'));
  await confirmsAtTheService(INTENTS, sent);
  await gateway.kill();
  await gateway.start();
  const backAt = Date.now();
  table.add(await judge(world, 'gateway SIGKILL mid-confirm', phones, () => backAt, STALLED));
  await gateway.stop();
});

describe('a gateway and a separate purchase worker', () => {
  let gateway: NodeProcess;
  beforeAll(async () => {
    gateway = started('src/main.ts', { GATEWAY_WORKERS: 'false' });
    await gateway.start();
  });
  afterAll(() => gateway.stop());

  it('the worker killed mid-confirm, then restarted', async () => {
    const worker = started('src/worker.ts', PATIENT);
    await worker.start();
    const phones = Array.from({ length: INTENTS }, () => phoneFor());
    await world.arm('confirm', 'slow', INTENTS, CONFIRM_SLOW_MS);
    const sent = confirmsSent();
    await Promise.all(phones.map((phone) => buy(world, () => gateway, phone)));
    await until('every confirm in flight', () => allIn(phones, 'confirming'));
    await confirmsAtTheService(INTENTS, sent);
    await worker.kill();
    await worker.start();
    const backAt = Date.now();
    try {
      table.add(await judge(world, 'worker SIGKILL mid-confirm', phones, () => backAt, STALLED));
    } finally {
      await worker.stop();
    }
  });

  it('the worker killed mid-SMS (the provider holding the request), then restarted', async () => {
    const worker = started('src/worker.ts');
    await worker.start();
    const phones = Array.from({ length: INTENTS }, () => phoneFor());
    const before = world.sink.hits.length;
    world.sink.mode = { kind: 'hang' };
    await Promise.all(phones.map((phone) => buy(world, () => gateway, phone)));
    await until('every token SMS held by the provider', () => world.sink.hits.length - before >= INTENTS);
    await worker.kill();
    world.sink.recover();
    await worker.start();
    const backAt = Date.now();
    try {
      table.add(await judge(world, 'worker SIGKILL mid-SMS', phones, () => backAt, STALLED));
    } finally {
      await worker.stop();
    }
  });

  it('the worker killed inside the at-least-once window (SMS accepted, `sent` not written)', async () => {
    const worker = started('src/worker.ts');
    await worker.start();
    const phone = phoneFor();
    let killedAt = 0;
    // The SMS records are in the world's records (the gateway's PostgreSQL schema).
    const { DATABASE_URL: url, DATABASE_SCHEMA: schema } = world.records.env;
    const db = await openPostgres({ url, schema, max: 1 });
    const notifications = new SqlMessageStore(db);
    let statusAtKill: string | undefined;
    let smsId = '';
    // The provider takes the SMS, and the worker dies before it can write `sent` (before the
    // answer reaches it: the same state as a crash between the answer and the write).
    world.sink.beforeAnswer = async (hit) => {
      if (hit.to !== phone) return;
      world.sink.beforeAnswer = undefined;
      smsId = hit.id;
      killedAt = Date.now();
      await worker.kill();
      statusAtKill = (await notifications.get(hit.id))?.status;
    };
    await buy(world, () => gateway, phone);
    await until('the worker killed with the SMS accepted', () => statusAtKill);
    // Inside the window: the provider has it, the record still says `sending`.
    expect(statusAtKill).toBe('sending');
    await worker.start();
    // The restarted worker finds it `sending` (its job stalled) and sends it again.
    await until(
      'the SMS sent again and recorded sent',
      async () => {
        const copies = world.sink.hits.filter((hit) => hit.id === smsId && hit.accepted).length;
        return copies === 2 && (await notifications.get(smsId))?.status === 'sent';
      },
      STALLED,
    );
    const row = await judge(
      world,
      'worker SIGKILL inside the at-least-once window',
      [phone],
      () => killedAt,
      {
        ...STALLED,
        allowDuplicateSms: true,
        note: 'sent again with the same id',
      },
    );
    // The one duplicate the window allows: the same SMS id, so a de-duplicating provider drops it.
    expect(row.duplicateSms).toBe(1);
    // Recovered when the second copy went out.
    row.recoverMs =
      Math.max(...world.sink.hits.filter((hit) => hit.id === smsId).map((hit) => hit.at)) - killedAt;
    table.add(row);
    await worker.stop();
    await db.close();
  });
});
