import type { Gateway } from '../../src/gateway/app';
import { SqlMessageStore } from '../../src/messaging/store/sql';
import { openPostgres } from '../../src/records/database';
import { startTestGateway } from '../e2e/harness';
import { until } from '../support/wait';
import { buy, FaultTable, judge, phoneFor, World } from './harness';
import type { SinkMode } from './sms-sink';

/**
 * The SMS provider failing — 500, 429 with Retry-After, hanging — and then recovering: every
 * token is delivered once it recovers, none twice. And the at-least-once window (the provider
 * accepted an SMS, our `sent` write is not in Redis yet) measured on every accepted SMS.
 */

const INTENTS = 3;

const world = new World();
const table = new FaultTable(__filename);
let gateway: Gateway;

beforeAll(async () => {
  await world.start();
  gateway = await startTestGateway(world.gatewayEnv());
});

afterAll(async () => {
  table.write();
  await gateway?.close();
  await world.close();
});

afterEach(() => world.sink.recover());

/** The provider fails as `mode` until it has failed every intent's SMS `failures` times, then recovers. */
async function providerFault(fault: string, mode: SinkMode, failures: number, note?: string): Promise<void> {
  const phones = Array.from({ length: INTENTS }, () => phoneFor());
  const before = world.sink.hits.length;
  world.sink.mode = mode;
  await Promise.all(phones.map((phone) => buy(world, () => gateway, phone)));
  await until(
    `${fault}: the provider failing ${failures} time(s) per SMS`,
    () => world.sink.hits.length - before >= INTENTS * failures,
    { timeoutMs: 60_000 },
  );
  // Recovered: new requests are accepted. Requests held by a hang stay held (the driver's own
  // timeout ends them, as with a provider that never answers).
  world.sink.mode = { kind: 'ok' };
  const failedUntil = world.sink.lastFailureAt;
  table.add(await judge(world, fault, phones, () => failedUntil, { note }));
}

it('SMS provider answering 500, then recovering', async () => {
  await providerFault('SMS provider 500', { kind: 'status', status: 500 }, 2);
});

it('SMS provider answering 429 with Retry-After, then recovering', async () => {
  await providerFault('SMS provider 429 Retry-After: 2', { kind: 'status', status: 429, retryAfterS: 2 }, 1);
});

it('SMS provider hanging, then recovering', async () => {
  await providerFault('SMS provider hanging', { kind: 'hang' }, 1, 'held until the 10 s send timeout');
});

it('the at-least-once window: provider accepted, `sent` not yet written', async () => {
  // The SMS records are in the world's records (the gateway's PostgreSQL schema).
  const { DATABASE_URL: url, DATABASE_SCHEMA: schema } = world.records.env;
  const db = await openPostgres({ url, schema, max: 1 });
  const notifications = new SqlMessageStore(db);
  const windows: Promise<number>[] = [];
  // From the moment the provider answered 200 until the record says `sent`: a crash inside
  // this window sends the SMS again (same id, so a provider that de-duplicates drops it).
  world.sink.onAccepted = (hit) =>
    windows.push(
      until(
        'the sent write',
        async () => ((await notifications.get(hit.id))?.status === 'sent' ? Date.now() - hit.at : null),
        { everyMs: 1 },
      ),
    );
  const phones = Array.from({ length: 10 }, () => phoneFor());
  try {
    await Promise.all(phones.map((phone) => buy(world, () => gateway, phone)));
    const started = Date.now();
    const row = await judge(world, 'at-least-once window (no fault)', phones, () => started);
    const measured = (await Promise.all(windows)).sort((a, b) => a - b);
    expect(measured.length).toBeGreaterThanOrEqual(phones.length);
    const median = measured[Math.floor(measured.length / 2)];
    row.note = `accepted → sent written: median ${median} ms, max ${measured.at(-1)} ms over ${measured.length} SMS`;
    table.add(row);
  } finally {
    world.sink.onAccepted = undefined;
    await db.close();
  }
});
