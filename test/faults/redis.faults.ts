import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main';
import type { Gateway } from '../../src/gateway/app';
import { ledger, startTestGateway } from '../e2e/harness';
import { until } from '../support/wait';
import { buy, FaultTable, judge, phoneFor, World } from './harness';

/**
 * Redis under a running gateway, with confirms in flight:
 * - stopped for a few seconds and started again (its data kept): subscribers dialling meanwhile
 *   get a polite END and dial again; every purchase completes once;
 * - restarted EMPTY (no persistence): the records and jobs of the purchases in flight are gone.
 *   Nothing may confirm them again (no record, no job: no second confirm). Their debits are
 *   found at the service by external reference and recovered by the operator
 *   (`npm run cli -- recover`, which asks `retry`, never confirm): every token still delivered.
 */

const INTENTS = 3;
/** How long Redis stays down (the issue asks for 5–20 s). */
const OUTAGE_MS = 6000;
/** Confirms answer this late, so Redis goes away while they are in flight. */
const CONFIRM_SLOW_MS = 1200;

const table = new FaultTable(__filename);
afterAll(() => table.write());

async function allConfirming(world: World, phones: string[]): Promise<boolean> {
  for (const phone of phones) {
    const [record] = await world.purchasesOf(phone);
    if (record?.state !== 'confirming') return false;
  }
  return true;
}

describe('Redis stopped mid-traffic', () => {
  const world = new World('aof-always');
  let gateway: Gateway;
  beforeAll(async () => {
    await world.start();
    gateway = await startTestGateway(world.gatewayEnv());
  });
  afterAll(async () => {
    await gateway?.close();
    await world.close();
  });

  it(`stopped ${OUTAGE_MS / 1000} s with confirms in flight and subscribers dialling, then back`, async () => {
    const inFlight = Array.from({ length: INTENTS }, () => phoneFor());
    const duringOutage = Array.from({ length: INTENTS }, () => phoneFor());
    await world.arm('confirm', 'slow', INTENTS, CONFIRM_SLOW_MS);
    const first = Promise.all(inFlight.map((phone) => buy(world, () => gateway, phone)));
    await until('confirms in flight', () => allConfirming(world, inFlight));
    await world.redisServer.kill();
    const second = Promise.all(duringOutage.map((phone) => buy(world, () => gateway, phone)));
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS)); // the outage itself
    await world.redisServer.start();
    const backAt = Date.now();
    await Promise.all([first, second]);
    table.add(
      await judge(
        world,
        `Redis stopped ${OUTAGE_MS / 1000} s`,
        [...inFlight, ...duringOutage],
        () => backAt,
        {
          // RedisDataLossWatch cannot tell a clean restart from a lossy one: purchases created in
          // the 30 s after it are probed with retry and held until no earlier confirm can be in flight.
          note: 'new purchases held ~30 s by the data-loss guard',
        },
      ),
    );
  });
});

describe('Redis restarted empty', () => {
  const world = new World('none');
  let gateway: Gateway;
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-faults-'));
  beforeAll(async () => {
    await world.start();
    gateway = await startTestGateway(world.gatewayEnv());
  });
  afterAll(async () => {
    await gateway?.close();
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('restarted empty with confirms in flight: nothing confirmed twice, the operator recovers the tokens', async () => {
    const phones = Array.from({ length: INTENTS }, () => phoneFor());
    await world.arm('confirm', 'slow', INTENTS, CONFIRM_SLOW_MS);
    const meters = await Promise.all(phones.map((phone) => buy(world, () => gateway, phone)));
    await until('confirms in flight', () => allConfirming(world, phones));
    await world.redisServer.kill();
    await world.redisServer.start();
    const backAt = Date.now();
    expect(await world.purchasesOf(phones[0])).toEqual([]); // the records are gone

    // The service performed the confirms (their answers reached a gateway that lost the
    // records): one debit each, and nothing confirms them again.
    const debited = await until('the confirms performed at the service', async () => {
      const rows = (await ledger(world.sandbox.url)).filter(
        (row) => meters.includes(row.subscriber_identifier) && row.debited_minor > 0,
      );
      return rows.length === INTENTS ? rows : null;
    });
    // New subscribers buy as usual meanwhile.
    const after = Array.from({ length: INTENTS }, () => phoneFor());
    await Promise.all(after.map((phone) => buy(world, () => gateway, phone)));

    // The operator lists the service's transactions for the lost window and recovers them.
    const csv = debited
      .map((row) => {
        const phone = phones[meters.indexOf(row.subscriber_identifier)];
        return `${row.external_reference},${row.subscriber_identifier},ELECTRICITY,+${phone}`;
      })
      .join('\n');
    const file = path.join(dir, 'lost.csv');
    writeFileSync(file, `${csv}\n`);
    const out: string[] = [];
    const code = await main(['recover', '--file', file], {
      stdout: (line) => out.push(line),
      stderr: (line) => out.push(line),
      env: { NODE_ENV: 'test', ...world.gatewayEnv() },
    });
    expect({ code, out }).toMatchObject({ code: 0 });
    expect(out.join('\n')).toContain(`${INTENTS} checked: ${INTENTS} recovered`);

    table.add(
      await judge(world, 'Redis restarted empty', [...phones, ...after], () => backAt, {
        note: `${INTENTS} in-flight records lost, tokens recovered with cli recover`,
      }),
    );
  });
});
