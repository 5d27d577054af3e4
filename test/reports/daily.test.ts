import { AgentRegistry } from '../../src/agents';
import { SqlFloatStore } from '../../src/agents/ledger/sql';
import { SqlAgentStore } from '../../src/agents/store/sql';
import { SqlPurchaseStore } from '../../src/purchases/store/sql';
import type { PurchasePatch } from '../../src/purchases/store';
import type { PurchaseIntent, PurchaseRecord, PurchaseState } from '../../src/purchases/types';
import type { Database } from '../../src/records/database';
import { ledgerCheck } from '../../src/reports/ledger-check';
import { dailyReport, ReportInputError, type DailyReport } from '../../src/reports/daily';
import { reportCsv } from '../../src/reports/csv';
import { FAST_SCRYPT, WIDE_LIMITS } from '../agents/helpers';
import { intent, record } from '../purchases/fixtures';
import { testDatabase, testPglite } from '../support/database';

/**
 * The daily report and the ledger check over records written by the real SQL stores, across
 * the day boundary of Africa/Gaborone (UTC+2): the local day 2026-11-25 is
 * [2026-11-24T22:00Z, 2026-11-25T22:00Z).
 */

const ZONE = 'Africa/Gaborone';
const AGENT_A = '26771000001';
const AGENT_B = '26771000002';
const bwp = (minor: number) => ({ currency: 'BWP', minor });

/** A step of a purchase's life: at this instant, into this state, writing this patch. */
type Step = [at: string, to: PurchaseState, patch?: PurchasePatch];

const confirm = (attempt = 1): PurchasePatch => ({ confirmAttempts: attempt });
const success = (total: number | null, at: string): PurchasePatch => ({
  result: {
    transactionId: 1,
    reference: 'BPC-1',
    rawToken: '1234-5678',
    units: null,
    total: total === null ? null : bwp(total),
    providerTransactionId: null,
  },
  settledAt: at,
});

/** Writes the records of the scenario through the SQL stores. */
async function populate(db: Database): Promise<void> {
  let now = new Date(0);
  const purchases = new SqlPurchaseStore({ db, clock: () => now });
  const floats = new SqlFloatStore(db);

  async function purchase(fields: Partial<PurchaseIntent>, createdAt: string, steps: Step[]) {
    let current: PurchaseRecord = record({ createdAt, updatedAt: createdAt, intent: intent(fields) });
    await purchases.create(current);
    for (const [at, to, patch] of steps) {
      now = new Date(at);
      const moved = await purchases.transition(current.id, [current.state], to, current.version, patch);
      if (!moved.ok) throw new Error(`transition to ${to} refused`);
      current = moved.record;
    }
    return current;
  }
  const sale = (key: string, amountMinor: number, at: string) =>
    floats.reserve(AGENT_A, {
      purchaseKey: key,
      amountMinor,
      funding: 'float',
      limits: WIDE_LIMITS,
      day: '2026-11-25',
      at: new Date(at),
    });

  await new AgentRegistry({
    store: new SqlAgentStore(db),
    timeZone: ZONE,
    region: 'BW',
    scrypt: FAST_SCRYPT,
  }).add({ msisdn: AGENT_A, name: 'Kgosi "Main", Stores', funding: { kind: 'float' } });
  // Agent B has a float and no agent record (its ledger outlives it), and nothing on the day.
  await floats.credit(AGENT_B, {
    kind: 'credit',
    amountMinor: 10_000,
    reference: 'b-1',
    at: new Date('2026-11-20T08:00:00.000Z'),
  });
  await floats.credit(AGENT_A, {
    kind: 'credit',
    amountMinor: 50_000,
    reference: 'a-1',
    at: new Date('2026-11-24T10:00:00.000Z'),
  });

  // P1: bought at 23:50 local on the 24th, succeeded at 00:05 on the 25th: the 25th's.
  await purchase({ amount: bwp(10_000) }, '2026-11-24T21:50:00.000Z', [
    ['2026-11-24T21:51:00.000Z', 'confirming', confirm()],
    ['2026-11-24T22:05:00.000Z', 'succeeded', success(10_250, '2026-11-24T22:05:00.000Z')],
    // The hand-over to the notifier, the next day: not a second success.
    ['2026-11-26T01:00:00.000Z', 'succeeded', { notifiedAt: '2026-11-26T01:00:00.000Z' }],
  ]);
  // P2: the last millisecond of the 25th; its first confirm never left (withdrawn), sent again.
  await purchase({ amount: bwp(5_000) }, '2026-11-25T10:00:00.000Z', [
    ['2026-11-25T10:00:01.000Z', 'confirming', confirm(1)],
    ['2026-11-25T10:00:02.000Z', 'created'],
    ['2026-11-25T10:00:03.000Z', 'confirming', confirm(2)],
    ['2026-11-25T21:59:59.999Z', 'succeeded', success(5_150, '2026-11-25T21:59:59.999Z')],
  ]);
  // P3: succeeded at local midnight: the 26th's; open (confirming) at the end of the 25th.
  await purchase({ amount: bwp(7_000) }, '2026-11-25T21:58:00.000Z', [
    ['2026-11-25T21:58:01.000Z', 'confirming', confirm()],
    ['2026-11-25T22:00:00.000Z', 'succeeded', success(7_100, '2026-11-25T22:00:00.000Z')],
  ]);
  // P4: by SMS, water, no total reported.
  await purchase(
    { amount: bwp(3_000), productType: 'WATER', providerCode: 'WUC', channel: 'SMS' },
    '2026-11-25T12:00:00.000Z',
    [
      ['2026-11-25T12:00:01.000Z', 'confirming', confirm()],
      ['2026-11-25T12:00:02.000Z', 'succeeded', success(null, '2026-11-25T12:00:02.000Z')],
    ],
  );
  // P5: agent A's sale, settled on the 25th.
  const agentSale = { productType: 'AIRTIME', providerCode: 'MASCOM', agent: { msisdn: AGENT_A } } as const;
  await sale('p5', 2_000, '2026-11-25T08:00:00.000Z');
  await purchase({ ...agentSale, amount: bwp(2_000), requesterMsisdn: AGENT_A }, '2026-11-25T08:00:00.000Z', [
    ['2026-11-25T08:00:01.000Z', 'confirming', confirm()],
    ['2026-11-25T08:01:00.000Z', 'succeeded', success(2_000, '2026-11-25T08:01:00.000Z')],
  ]);
  await floats.settle(AGENT_A, 'p5', new Date('2026-11-25T08:01:00.000Z'));
  // Corrections of agent A's float on the 25th.
  await floats.credit(AGENT_A, {
    kind: 'adjustment',
    amountMinor: 1_000,
    reference: 'a-2',
    at: new Date('2026-11-25T09:00:00.000Z'),
  });
  await floats.credit(AGENT_A, {
    kind: 'adjustment',
    amountMinor: -500,
    reference: 'a-3',
    at: new Date('2026-11-25T09:30:00.000Z'),
  });
  // P6: agent A's sale held over midnight, settled on the 26th.
  await sale('p6', 1_500, '2026-11-25T21:30:00.000Z');
  await purchase({ ...agentSale, amount: bwp(1_500), requesterMsisdn: AGENT_A }, '2026-11-25T21:30:00.000Z', [
    ['2026-11-25T21:30:01.000Z', 'confirming', confirm()],
    ['2026-11-25T22:30:00.000Z', 'succeeded', success(1_500, '2026-11-25T22:30:00.000Z')],
  ]);
  await floats.settle(AGENT_A, 'p6', new Date('2026-11-25T22:30:00.000Z'));
  // P7: unknown at the end of the 25th, failed on the 26th.
  await purchase({ amount: bwp(4_000) }, '2026-11-25T15:00:00.000Z', [
    ['2026-11-25T15:00:01.000Z', 'confirming', confirm()],
    ['2026-11-25T15:01:00.000Z', 'unknown'],
    ['2026-11-26T09:00:00.000Z', 'reconciling'],
    ['2026-11-26T09:00:01.000Z', 'failed'],
  ]);
  // P8: failed on the 25th: neither sold nor open.
  await purchase({ amount: bwp(6_000) }, '2026-11-25T16:00:00.000Z', [
    ['2026-11-25T16:00:01.000Z', 'confirming', confirm()],
    ['2026-11-25T16:01:00.000Z', 'failed'],
  ]);
  // P9: waiting for an operator since the 24th.
  await purchase({ amount: bwp(9_000) }, '2026-11-24T10:00:00.000Z', [
    ['2026-11-24T10:00:01.000Z', 'confirming', confirm()],
    ['2026-11-24T10:01:00.000Z', 'unknown'],
    ['2026-11-24T10:02:00.000Z', 'reconciling'],
    ['2026-11-24T12:00:00.000Z', 'needs_attention'],
  ]);
}

const DAY_25: DailyReport = {
  date: '2026-11-25',
  timeZone: ZONE,
  from: '2026-11-24T22:00:00.000Z',
  to: '2026-11-25T22:00:00.000Z',
  sales: [
    {
      productType: 'AIRTIME',
      providerCode: 'MASCOM',
      channel: 'USSD',
      count: 1,
      amount: bwp(2_000),
      charges: bwp(0),
      total: bwp(2_000),
      totalsUnknown: 0,
    },
    {
      productType: 'ELECTRICITY',
      providerCode: 'BPC',
      channel: 'USSD',
      count: 2,
      amount: bwp(15_000),
      charges: bwp(400),
      total: bwp(15_400),
      totalsUnknown: 0,
    },
    {
      productType: 'WATER',
      providerCode: 'WUC',
      channel: 'SMS',
      count: 1,
      amount: bwp(3_000),
      charges: bwp(0),
      total: bwp(3_000),
      totalsUnknown: 1,
    },
  ],
  agents: [
    {
      msisdn: AGENT_A,
      name: 'Kgosi "Main", Stores',
      sales: { count: 1, value: bwp(2_000) },
      floatIn: bwp(1_000),
      floatOut: bwp(2_500),
      commission: bwp(0),
      transfersIn: bwp(0),
      transfersOut: bwp(0),
      opening: { balance: bwp(50_000), held: bwp(0) },
      closing: { balance: bwp(47_000), held: bwp(1_500) },
    },
    {
      msisdn: AGENT_B,
      name: null,
      sales: { count: 0, value: bwp(0) },
      floatIn: bwp(0),
      floatOut: bwp(0),
      commission: bwp(0),
      transfersIn: bwp(0),
      transfersOut: bwp(0),
      opening: { balance: bwp(10_000), held: bwp(0) },
      closing: { balance: bwp(10_000), held: bwp(0) },
    },
  ],
  open: [
    { state: 'confirming', count: 2, amount: bwp(8_500) },
    { state: 'unknown', count: 1, amount: bwp(4_000) },
    { state: 'needs_attention', count: 1, amount: bwp(9_000) },
  ],
};

describe('daily report on postgres', () => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ db, cleanup } = await testDatabase('report'));
    await populate(db);
  });
  afterAll(() => cleanup());

  it('counts a local day: sales by product, provider and channel, agents, purchases open at its end', async () => {
    expect(await dailyReport(db, { date: '2026-11-25', timeZone: ZONE })).toEqual(DAY_25);
  });

  it('counts the next day what crossed midnight, and adds up each float across days', async () => {
    const day26 = await dailyReport(db, { date: '2026-11-26', timeZone: ZONE });
    expect(day26.sales.map((s) => [s.productType, s.count, s.amount.minor, s.charges.minor])).toEqual([
      ['AIRTIME', 1, 1_500, 0],
      ['ELECTRICITY', 1, 7_000, 100],
    ]);
    expect(day26.agents[0]).toMatchObject({
      msisdn: AGENT_A,
      sales: { count: 1, value: bwp(1_500) },
      floatOut: bwp(1_500),
      opening: DAY_25.agents[0].closing,
      closing: { balance: bwp(47_000), held: bwp(0) },
    });
    expect(day26.open).toEqual([{ state: 'needs_attention', count: 1, amount: bwp(9_000) }]);
    // Float in − out is what the float (available and held) moved by, every day.
    for (const report of [DAY_25, day26])
      for (const agent of report.agents) {
        const worth = (f: typeof agent.opening) => (f ? f.balance.minor + f.held.minor : 0);
        expect(
          worth(agent.opening) + agent.floatIn.minor + agent.commission.minor - agent.floatOut.minor,
        ).toBe(worth(agent.closing));
      }
    // In UTC the day is another one: P1 is the 24th's there, P3 the 25th's.
    const utc = await dailyReport(db, { date: '2026-11-25', timeZone: 'UTC' });
    expect(utc.sales.find((s) => s.productType === 'ELECTRICITY')).toMatchObject({
      count: 2,
      amount: bwp(12_000),
    });
  });

  it('writes the report as RFC 4180 CSV', async () => {
    const csv = reportCsv(DAY_25);
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe(
      'section,date,product,provider,channel,agent,agent_name,state,currency,count,amount,charges,total,' +
        'totals_unknown,float_in,float_out,opening_balance,opening_held,closing_balance,closing_held,' +
        'commission,transfers_in,transfers_out',
    );
    expect(lines).toContain('sales,2026-11-25,ELECTRICITY,BPC,USSD,,,,BWP,2,150.00,4.00,154.00,0,,,,,,,,,');
    expect(lines).toContain(
      `agent,2026-11-25,,,,${AGENT_A},"Kgosi ""Main"", Stores",,BWP,1,20.00,,,,10.00,25.00,500.00,0.00,470.00,15.00,0.00,0.00,0.00`,
    );
    expect(lines).toContain('open,2026-11-25,,,,,,confirming,BWP,2,85.00,,,,,,,,,,,,');
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(lines).toHaveLength(1 + 3 + 2 + 3 + 1);
    const formula = reportCsv({
      ...DAY_25,
      sales: [],
      open: [],
      agents: [{ ...DAY_25.agents[1], name: '=HYPERLINK("x")' }],
    });
    expect(formula).toContain(`,"'=HYPERLINK(""x"")",`);
  });

  it('refuses a day or a zone that is not one', async () => {
    await expect(dailyReport(db, { date: '2026-02-30', timeZone: ZONE })).rejects.toThrow(ReportInputError);
    await expect(dailyReport(db, { date: '25/11/2026', timeZone: ZONE })).rejects.toThrow(ReportInputError);
    await expect(dailyReport(db, { date: '2026-11-25', timeZone: 'Mars/Olympus' })).rejects.toThrow(
      ReportInputError,
    );
  });

  it('finds the ledger adding up, then each way it can fail to', async () => {
    expect(await ledgerCheck(db)).toEqual([]);

    let now = new Date('2026-11-27T08:00:00.000Z');
    const store = new SqlPurchaseStore({ db, clock: () => (now = new Date(now.getTime() + 1000)) });
    const walk = async (r: PurchaseRecord, steps: [PurchaseState, PurchasePatch?][]) => {
      await store.create(r);
      let current = r;
      for (const [to, patch] of steps) {
        const moved = await store.transition(current.id, [current.state], to, current.version, patch);
        if (!moved.ok) throw new Error(`transition to ${to} refused`);
        current = moved.record;
      }
      return current;
    };
    // Succeeded with no confirm step (created → succeeded: the lost-write probe path).
    const unconfirmed = await walk(record({ createdAt: now.toISOString() }), [['succeeded']]);
    // Its record counts 3 confirms; its history one.
    const miscounted = await walk(record({ createdAt: now.toISOString() }), [
      ['confirming', confirm(3)],
      ['succeeded'],
    ]);
    // Entered succeeded twice.
    const twice = await walk(record({ createdAt: now.toISOString() }), [
      ['confirming', confirm()],
      ['succeeded'],
      ['failed'],
      ['succeeded'],
    ]);
    // Two confirms that may both have charged (none withdrawn).
    const doubled = await walk(record({ createdAt: now.toISOString() }), [
      ['confirming', confirm(1)],
      ['unknown'],
      ['created'],
      ['confirming', confirm(2)],
      ['succeeded'],
    ]);
    // A balance moved without an entry.
    await db.query('UPDATE float_accounts SET balance_minor = balance_minor + 1 WHERE msisdn = $1', [
      AGENT_B,
    ]);

    const problems = await ledgerCheck(db);
    expect(problems.filter((p) => p.kind === 'float_account')).toEqual([
      expect.objectContaining({
        msisdn: AGENT_B,
        discrepancy: expect.objectContaining({ balanceMinor: 10_001, entriesSumMinor: 10_000 }),
      }),
    ]);
    const byPurchase = Object.fromEntries(
      problems.flatMap((p) => (p.kind === 'purchase_confirm' ? [[p.purchaseId, p]] : [])),
    );
    expect(Object.keys(byPurchase).sort()).toEqual(
      [unconfirmed.id, miscounted.id, twice.id, doubled.id].sort(),
    );
    expect(byPurchase[unconfirmed.id]).toMatchObject({
      confirmsStarted: 0,
      confirmAttempts: 0,
      successes: 1,
    });
    expect(byPurchase[unconfirmed.id].message).toMatch(/0 confirms that may have reached the service/);
    expect(byPurchase[miscounted.id]).toMatchObject({ confirmsStarted: 1, confirmAttempts: 3 });
    expect(byPurchase[twice.id]).toMatchObject({
      successes: 2,
      message: expect.stringMatching(/entered succeeded 2 times/),
    });
    expect(byPurchase[doubled.id]).toMatchObject({ confirmsStarted: 2, confirmsWithdrawn: 0 });
    // The twice-succeeded purchase counts once, on the day of its first success.
    expect(
      (await dailyReport(db, { date: '2026-11-27', timeZone: ZONE })).sales.reduce((n, s) => n + s.count, 0),
    ).toBe(4);
  });
});

describe('daily report on pglite', () => {
  it('gives the same figures as on postgres', async () => {
    const { db, cleanup } = await testPglite();
    try {
      await populate(db);
      expect(await dailyReport(db, { date: '2026-11-25', timeZone: ZONE })).toEqual(DAY_25);
      expect(await ledgerCheck(db)).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});
