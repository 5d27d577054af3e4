import { createAgents, type Agent, type Agents } from '../../src/agents';
import { parseCommissionPolicy } from '../../src/agents/commission';
import { ledgerDiscrepancies } from '../../src/agents/ledger/sql';
import { AgentSummarySchedule } from '../../src/agents/summary-schedule';
import { dailyReport } from '../../src/reports/daily';
import type { Database } from '../../src/records/database';
import { AgentSide } from '../../src/sales/agent-side';
import type { PurchaseRecord } from '../../src/purchases/types';
import { testDatabase, testPglite } from '../support/database';
import { AGENTS_CONFIG } from './harness';
import { FAST_SCRYPT, frozenClock } from './helpers';

const bwp = (minor: number) => ({ currency: 'BWP', minor });
const DEALER = '26771000100';
const RETAILER = '26771000101';
const OTHER = '26771000102';
const ASSISTANT = '26771000103';

/** A settled purchase as the lifecycle hands it to the settlement hook. */
function sale(
  key: string,
  seller: string,
  state: PurchaseRecord['state'],
  amountMinor = 10_000,
  serviceCommission: number | null = null,
): PurchaseRecord {
  return {
    id: `p-${key}`,
    idempotencyKey: key,
    state,
    intent: {
      productType: 'ELECTRICITY',
      amount: bwp(amountMinor),
      agent: { msisdn: seller },
    },
    result:
      state === 'succeeded'
        ? { commission: serviceCommission === null ? null : bwp(serviceCommission) }
        : null,
  } as unknown as PurchaseRecord;
}

describe.each([
  ['postgres', () => testDatabase('network')],
  ['pglite', () => testPglite()],
] as const)('the agent network on %s', (_kind, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  let agents: Agents;
  let side: AgentSide;
  let dealer: Agent;
  let retailer: Agent;

  beforeAll(async () => {
    ({ db, cleanup } = await open());
  });
  afterAll(() => cleanup());
  beforeEach(async () => {
    await db.query(
      'TRUNCATE agents, float_accounts, float_entries, float_idempotency_keys, float_holds, agent_deposits, agent_summaries',
    );
    agents = createAgents(
      db,
      {
        ...AGENTS_CONFIG,
        agents: {
          ...AGENTS_CONFIG.agents,
          commission: parseCommissionPolicy('ELECTRICITY:2%,AIRTIME:BWP 1.00,WATER:service 50%', 'BWP'),
          dealerShareBp: 2_500,
        },
      },
      { scrypt: FAST_SCRYPT, clock: frozenClock('2026-11-23T08:00:00.000Z').clock },
    );
    side = new AgentSide(agents, 'Africa/Gaborone');
    dealer = (await agents.registry.add({ msisdn: DEALER, name: 'Dealer', funding: { kind: 'float' } }))
      .agent;
    retailer = (
      await agents.registry.add({
        msisdn: RETAILER,
        name: 'Shop',
        funding: { kind: 'float' },
        dealer: DEALER,
      })
    ).agent;
    await agents.float.credit(dealer, { amount: bwp(100_000), reference: 'OPEN-D' });
  });

  it('refuses an agent that is its own dealer, in the code and in the database', async () => {
    await expect(
      agents.registry.add({ msisdn: OTHER, name: 'x', funding: { kind: 'float' }, dealer: OTHER }),
    ).rejects.toThrow(/own dealer/);
    await expect(
      db.query(`UPDATE agents SET dealer_msisdn = msisdn WHERE msisdn = $1`, [DEALER]),
    ).rejects.toThrow(/agents_dealer_not_self/);
  });

  describe('commission', () => {
    it('is credited once when the sale succeeds, split with the dealer, never on a failed or open sale', async () => {
      await agents.float.credit(retailer, { amount: bwp(50_000), reference: 'OPEN-R' });
      for (const key of ['ok', 'failed', 'open']) expect(await side.hold(retailer, key, 10_000)).toBeNull();
      await side.settled(sale('ok', RETAILER, 'succeeded'));
      await side.settled(sale('ok', RETAILER, 'succeeded')); // the sweep runs it again
      await side.settled(sale('failed', RETAILER, 'failed'));
      await side.settled(sale('open', RETAILER, 'needs_attention'));
      const kinds = async (msisdn: string) =>
        (await agents.float.statement(msisdn)).entries.filter((e) => e.kind === 'commission');
      // 2% of 100.00 = 2.00: the dealer's 25% is 0.50, the retailer keeps 1.50.
      expect((await kinds(RETAILER)).map((e) => [e.purchaseKey, e.amountMinor])).toEqual([['ok', 150]]);
      expect((await kinds(DEALER)).map((e) => [e.purchaseKey, e.amountMinor])).toEqual([['ok', 50]]);
      expect((await agents.float.balance(RETAILER)).availableMinor).toBe(50_000 - 30_000 + 10_000 + 150);
      expect(await ledgerDiscrepancies(db)).toEqual([]);
      const report = await dailyReport(db, { date: '2026-11-23', timeZone: 'Africa/Gaborone' });
      expect(report.agents.find((a) => a.msisdn === RETAILER)?.commission).toEqual(bwp(150));
      expect(report.agents.find((a) => a.msisdn === DEALER)?.commission).toEqual(bwp(50));
      expect((await agents.float.dayFigures(RETAILER, '2026-11-23')).commissionMinor).toBe(150);
    });

    it('is summed for today and this month (local days), and read per sale for the receipt', async () => {
      const time = frozenClock('2026-10-31T21:30:00.000Z'); // 23:30 on 31 October in Gaborone
      const own = createAgents(
        db,
        {
          ...AGENTS_CONFIG,
          agents: {
            ...AGENTS_CONFIG.agents,
            commission: parseCommissionPolicy('ELECTRICITY:2%', 'BWP'),
            dealerShareBp: 2_500,
          },
        },
        { scrypt: FAST_SCRYPT, clock: time.clock },
      );
      const ownSide = new AgentSide(own, 'Africa/Gaborone');
      await own.float.credit(retailer, { amount: bwp(50_000), reference: 'OPEN-R' });
      const sell = async (key: string, amountMinor: number, at: string) => {
        time.set(at);
        expect(await ownSide.hold(retailer, key, amountMinor)).toBeNull();
        await ownSide.settled(sale(key, RETAILER, 'succeeded', amountMinor));
      };
      await sell('october', 10_000, '2026-10-31T21:30:00.000Z'); // 1.50, last month
      await sell('first', 10_000, '2026-10-31T22:30:00.000Z'); // 1.50, 00:30 on 1 November
      await sell('today', 20_000, '2026-11-23T08:00:00.000Z'); // 3.00
      expect(await own.float.commissionEarned(RETAILER)).toEqual({ todayMinor: 300, monthMinor: 450 });
      expect(await own.float.commissionEarned(RETAILER, '2026-10-31')).toEqual({
        todayMinor: 150,
        monthMinor: 150,
      });
      expect(await own.float.commissionEarned(DEALER)).toEqual({ todayMinor: 100, monthMinor: 150 });
      expect(await ownSide.saleCommission(sale('today', RETAILER, 'succeeded', 20_000))).toEqual(bwp(300));
      expect(await ownSide.saleCommission(sale('nothing', RETAILER, 'succeeded'))).toBeNull();
      // The statement: its entries' commission, and today's and this month's whatever the period.
      expect((await own.float.statement(RETAILER)).commission).toEqual({
        periodMinor: 600,
        todayMinor: 300,
        monthMinor: 450,
      });
      const october = await own.float.statement(RETAILER, { to: new Date('2026-10-31T22:00:00.000Z') });
      expect(october.commission).toEqual({ periodMinor: 150, todayMinor: 300, monthMinor: 450 });
    });

    it('follows the policy per product: fixed, and a share of the service commission', async () => {
      await agents.float.credit(retailer, { amount: bwp(50_000), reference: 'OPEN-R' });
      const solo = (
        await agents.registry.add({
          msisdn: OTHER,
          name: 'Solo',
          funding: { kind: 'float' },
          commission: 'ELECTRICITY:5%',
        })
      ).agent;
      await agents.float.credit(solo, { amount: bwp(50_000), reference: 'OPEN-S' });
      expect(await side.hold(solo, 'solo', 10_000)).toBeNull();
      await side.settled(sale('solo', OTHER, 'succeeded'));
      expect(await side.hold(retailer, 'water', 10_000)).toBeNull();
      const water = sale('water', RETAILER, 'succeeded', 10_000, 400);
      water.intent.productType = 'WATER';
      await side.settled(water);
      const earned = async (msisdn: string) =>
        (await agents.float.statement(msisdn)).entries
          .filter((e) => e.kind === 'commission')
          .map((e) => e.amountMinor);
      expect(await earned(OTHER)).toEqual([500]); // its own 5%, no dealer
      expect(await earned(RETAILER)).toEqual([150]); // 50% of the service's 4.00, less the dealer's 25%
      expect(await earned(DEALER)).toEqual([50]);
    });

    it('is the database: a second commission entry for one purchase is refused', async () => {
      await agents.float.credit(retailer, { amount: bwp(50_000), reference: 'OPEN-R' });
      expect(await side.hold(retailer, 'k', 10_000)).toBeNull();
      await side.settled(sale('k', RETAILER, 'succeeded'));
      await expect(
        db.query(`SELECT float_append($1, now(), 'commission', 5, 5, 0, 'k', NULL, NULL)`, [RETAILER]),
      ).rejects.toThrow(/duplicate key|unique/i);
    });
  });

  describe('transfers', () => {
    it('moves float once per reference, both sides in one transaction', async () => {
      const moved = await agents.float.transfer(dealer, RETAILER, 30_000, 'tr-1');
      expect(moved).toMatchObject({ status: 'transferred', dealerMinor: 70_000, retailerMinor: 30_000 });
      expect(await agents.float.transfer(dealer, RETAILER, 30_000, 'tr-1')).toMatchObject({
        status: 'duplicate',
        dealerMinor: 70_000,
        retailerMinor: 30_000,
      });
      expect(await agents.float.transfer(dealer, RETAILER, 1_000, 'tr-1')).toEqual({ status: 'conflict' });
      expect(await ledgerDiscrepancies(db)).toEqual([]);
      // The daily report's lines and the summary's figures say the same.
      const report = await dailyReport(db, { date: '2026-11-23', timeZone: 'Africa/Gaborone' });
      expect(report.agents.find((a) => a.msisdn === DEALER)).toMatchObject({
        transfersOut: bwp(30_000),
        floatIn: bwp(100_000),
        floatOut: bwp(30_000),
      });
      expect(report.agents.find((a) => a.msisdn === RETAILER)).toMatchObject({
        transfersIn: bwp(30_000),
        floatIn: bwp(30_000),
      });
      expect(await agents.float.dayFigures(DEALER, '2026-11-23')).toMatchObject({
        transfersOutMinor: 30_000,
        floatInMinor: 100_000,
        floatOutMinor: 30_000,
        closingMinor: 70_000,
      });
    });

    it('never more than the dealer has, never to an agent that is not its retailer', async () => {
      await agents.registry.add({ msisdn: OTHER, name: 'Not mine', funding: { kind: 'float' } });
      expect(await agents.float.transfer(dealer, RETAILER, 100_001, 'big')).toEqual({
        status: 'insufficient',
        availableMinor: 100_000,
      });
      expect(await agents.float.transfer(dealer, OTHER, 1_000, 'other')).toEqual({ status: 'not_retailer' });
      expect(await agents.float.transfer(retailer, DEALER, 1_000, 'up')).toEqual({ status: 'not_retailer' });
      expect((await agents.float.balance(DEALER)).availableMinor).toBe(100_000);
      expect((await agents.float.balance(OTHER)).entries).toBe(0);
    });
  });

  describe('assistants', () => {
    it('sell from the outlet float; the commission is the outlet’s', async () => {
      const assistant = (await agents.registry.addAssistant({ outlet: RETAILER, msisdn: ASSISTANT })).agent;
      expect(assistant.outletMsisdn).toBe(RETAILER);
      await agents.float.transfer(dealer, RETAILER, 20_000, 'fund');
      expect(await side.hold(assistant, 'a1', 10_000)).toBeNull();
      expect((await agents.float.balance(RETAILER)).heldMinor).toBe(10_000);
      expect((await agents.float.balance(ASSISTANT)).entries).toBe(0);
      await side.settled(sale('a1', ASSISTANT, 'succeeded'));
      expect((await agents.float.balance(RETAILER)).availableMinor).toBe(10_000 + 150);
      // The owner disables its assistant: it sells nothing more; the owner may enable it again.
      expect(await agents.registry.supervise(RETAILER, ASSISTANT, 'disabled')).toMatchObject({
        status: 'done',
      });
      expect(await side.hold(ASSISTANT, 'a2', 100)).toMatchObject({
        code: 'agent_disabled',
        reason: 'owner',
      });
      expect(await agents.registry.supervise(RETAILER, ASSISTANT, 'active')).toMatchObject({
        status: 'done',
      });
      // An outlet stopped stops its assistants.
      await agents.registry.disable(RETAILER);
      expect(await side.hold(ASSISTANT, 'a3', 100)).toMatchObject({ code: 'agent_disabled' });
    });
  });

  describe('a dealer supervising its retailers', () => {
    it('disables and enables its own, never re-enables one an operator disabled, never touches another', async () => {
      expect(await agents.registry.supervise(DEALER, RETAILER, 'disabled')).toMatchObject({
        status: 'done',
        agent: { status: 'disabled', disabledReason: 'dealer' },
      });
      expect(await agents.registry.supervise(DEALER, RETAILER, 'active')).toMatchObject({ status: 'done' });
      await agents.registry.disable(RETAILER, 'operator');
      expect(await agents.registry.supervise(DEALER, RETAILER, 'active')).toEqual({
        status: 'not_allowed',
        reason: 'operator',
      });
      expect((await agents.registry.require(RETAILER)).disabledReason).toBe('operator');
      await agents.registry.add({ msisdn: OTHER, name: 'Not mine', funding: { kind: 'float' } });
      expect(await agents.registry.supervise(DEALER, OTHER, 'disabled')).toEqual({ status: 'not_yours' });
    });
  });

  describe('top-ups and deposits', () => {
    it('credits a paid top-up once per provider reference', async () => {
      expect((await agents.float.creditTopUp(retailer, bwp(5_000), 'MPESA-1')).status).toBe('credited');
      expect((await agents.float.creditTopUp(retailer, bwp(5_000), 'MPESA-1')).status).toBe('duplicate');
      expect((await agents.float.balance(RETAILER)).availableMinor).toBe(5_000);
    });

    it('keeps a deposit pending until approved, credits it once, and a bank reference once', async () => {
      const deposit = await agents.float.reportDeposit(retailer, bwp(20_000), 'fnb-123');
      expect(deposit).toMatchObject({ state: 'pending', bankReference: 'FNB-123' });
      expect(await agents.float.reportDeposit(dealer, bwp(20_000), 'FNB-123')).toBeNull();
      expect((await agents.float.balance(RETAILER)).availableMinor).toBe(0);
      const [a, b] = await Promise.all([
        agents.float.approveDeposit(deposit!.id, 'ops'),
        agents.float.approveDeposit(deposit!.id, 'ops'),
      ]);
      expect([a.status, b.status].sort()).toEqual(['already', 'approved']);
      expect(await agents.float.rejectDeposit(deposit!.id, 'ops', 'late')).toMatchObject({
        status: 'already',
      });
      expect((await agents.float.balance(RETAILER)).availableMinor).toBe(20_000);
      const other = await agents.float.reportDeposit(retailer, bwp(1_000), 'FNB-124');
      expect(await agents.float.rejectDeposit(other!.id, 'ops', 'no such transfer')).toMatchObject({
        status: 'rejected',
      });
      expect(await agents.float.approveDeposit(other!.id, 'ops')).toMatchObject({ status: 'already' });
      expect((await agents.float.balance(RETAILER)).availableMinor).toBe(20_000);
    });
  });

  it("sends the day's summary once per active agent from AGENT_SUMMARY_TIME on", async () => {
    await agents.float.transfer(dealer, RETAILER, 1_000, 'sum-1');
    await agents.registry.add({ msisdn: OTHER, name: 'Idle', funding: { kind: 'float' } });
    const time = frozenClock('2026-11-23T16:59:00.000Z'); // 18:59 in Gaborone
    const sent: { id: string; to: string; message: string }[] = [];
    const schedule = new AgentSummarySchedule({
      db,
      registry: agents.registry,
      float: agents.float,
      time: '19:00',
      timeZone: 'Africa/Gaborone',
      compose: async (agent, day) => `summary ${agent.msisdn} ${day}`,
      send: async (sms) => {
        sent.push(sms);
      },
      clock: time.clock,
    });
    expect(await schedule.runDue()).toBe(0);
    time.set('2026-11-23T17:05:00.000Z');
    expect(await Promise.all([schedule.runDue(), schedule.runDue()])).toContain(2);
    expect(await schedule.runDue()).toBe(0);
    // Each SMS under one id per agent and day: the message store sends an id once.
    expect(new Set(sent.map((s) => s.id))).toEqual(
      new Set([`summary:${DEALER}:2026-11-23`, `summary:${RETAILER}:2026-11-23`]),
    );
  });

  it('adds up after transfers, top-ups, deposits, sales and commissions all at once', async () => {
    const retailers = ['26771000201', '26771000202', '26771000203'];
    for (const msisdn of retailers)
      await agents.registry.add({ msisdn, name: msisdn, funding: { kind: 'float' }, dealer: DEALER });
    const all = await Promise.all(retailers.map((m) => agents.registry.require(m)));
    const work: Promise<unknown>[] = [];
    for (const [r, agent] of all.entries()) {
      for (let i = 0; i < 12; i += 1) {
        // Each transfer asked twice (a retried request): applied once.
        work.push(agents.float.transfer(dealer, agent.msisdn, 2_000, `t-${r}-${i}`));
        work.push(agents.float.transfer(dealer, agent.msisdn, 2_000, `t-${r}-${i}`));
        work.push(agents.float.creditTopUp(agent, bwp(500), `pay-${r}-${i % 4}`));
        work.push(
          (async () => {
            const key = `s-${r}-${i}`;
            if ((await side.hold(agent, key, 1_500)) !== null) return;
            const state = i % 3 === 0 ? 'failed' : 'succeeded';
            await Promise.all([
              side.settled(sale(key, agent.msisdn, state, 1_500)),
              side.settled(sale(key, agent.msisdn, state, 1_500)),
            ]);
          })(),
        );
      }
      work.push(
        (async () => {
          const d = await agents.float.reportDeposit(agent, bwp(3_000), `dep-${r}`);
          await Promise.all([
            agents.float.approveDeposit(d!.id, 'a'),
            agents.float.approveDeposit(d!.id, 'b'),
          ]);
        })(),
      );
    }
    await Promise.all(work);
    expect(await ledgerDiscrepancies(db)).toEqual([]);
    const dup = await db.query(
      `SELECT msisdn, kind, coalesce(reference, purchase_key) AS ref, count(*)::int AS n FROM float_entries
        GROUP BY 1, 2, 3 HAVING count(*) > 1`,
    );
    expect(dup.rows).toEqual([]);
    const negative = await db.query(`SELECT * FROM float_entries WHERE balance_minor < 0`);
    expect(negative.rows).toEqual([]);
    // 36 transfers of 20.00 left the dealer's 1000.00 with 280.00 and its commission shares.
    const dealerEntries = (await agents.float.statement(DEALER)).entries;
    expect(dealerEntries.filter((e) => e.kind === 'transfer_out')).toHaveLength(36);
    const shares = dealerEntries
      .filter((e) => e.kind === 'commission')
      .reduce((n, e) => n + e.amountMinor, 0);
    expect((await agents.float.balance(DEALER)).availableMinor).toBe(100_000 - 72_000 + shares);
  });
});
