import { main } from '../../src/cli/main';
import { SqlFloatStore } from '../../src/agents/ledger/sql';
import { SqlAuditTrail } from '../../src/purchases/care';
import { SqlPurchaseStore } from '../../src/purchases/store/sql';
import type { PurchaseRecord } from '../../src/purchases/types';
import { intent, record } from '../purchases/fixtures';
import { testDatabase, type TestDatabase } from '../support/database';

/**
 * `npm run cli -- ledger check` and `report daily` on records in PostgreSQL (a schema of its
 * own), written by the real SQL stores and then broken on purpose with an UPDATE.
 */

const AGENT_A = '26771000011';
const AGENT_B = '26771000012';
/** 10:00 local on 2026-11-25 in Gaborone (UTC+2). */
const SOLD_AT = '2026-11-25T08:00:00.000Z';

let t: TestDatabase;
let sold: PurchaseRecord;

beforeAll(async () => {
  t = await testDatabase('records_cli');
  const floats = new SqlFloatStore(t.db);
  for (const [msisdn, ref] of [
    [AGENT_A, 'a-1'],
    [AGENT_B, 'b-1'],
  ])
    await floats.credit(msisdn, {
      kind: 'credit',
      amountMinor: 50_000,
      reference: ref,
      at: new Date(SOLD_AT),
    });
  const purchases = new SqlPurchaseStore({ db: t.db, clock: () => new Date(SOLD_AT) });
  const created = record({ createdAt: SOLD_AT, updatedAt: SOLD_AT, intent: intent() });
  await purchases.create(created);
  const confirming = await purchases.transition(created.id, ['created'], 'confirming', created.version, {
    confirmAttempts: 1,
  });
  if (!confirming.ok) throw new Error('not confirming');
  const done = await purchases.transition(
    created.id,
    ['confirming'],
    'succeeded',
    confirming.record.version,
    {
      settledAt: SOLD_AT,
      result: {
        transactionId: 1,
        reference: 'BPC-1',
        rawToken: '1234-5678',
        units: null,
        total: { currency: 'BWP', minor: 10_150 },
        providerTransactionId: null,
      },
    },
  );
  if (!done.ok) throw new Error('not succeeded');
  sold = done.record;
});
afterAll(() => t.cleanup());

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    env: { NODE_ENV: 'test', DATABASE_URL: t.url, DATABASE_SCHEMA: t.schema, USER: 'neo', ...env },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('ledger check', () => {
  it('adds up: exit 0 and the count of accounts', async () => {
    expect(await run(['ledger', 'check'])).toEqual({
      code: 0,
      out: 'ledger adds up: 2 accounts, 1 succeeded purchases (one confirm each)',
      err: '',
    });
  });

  it('a balance changed behind the ledger: exit 1 with the account (masked unless --reveal)', async () => {
    await t.db.query('UPDATE float_accounts SET balance_minor = balance_minor + 100 WHERE msisdn = $1', [
      AGENT_A,
    ]);
    try {
      const found = await run(['ledger', 'check']);
      expect(found).toEqual({
        code: 1,
        out: expect.stringMatching(/^float 267\*{4}0011\S*: balance 50100 but its entries sum to 50000/),
        err: 'error: the ledger does not add up: 1 problem(s) (above)',
      });
      expect(found.out).not.toContain(AGENT_A);
      const revealed = await run(['ledger', 'check', '--json', '--reveal']);
      expect(revealed.code).toBe(1);
      expect(JSON.parse(revealed.out)).toMatchObject({
        accounts: 2,
        problems: [{ kind: 'float_account', msisdn: AGENT_A }],
      });
      expect((await new SqlAuditTrail(t.db).list())[0]).toMatchObject({
        actor: 'cli:neo',
        action: 'reveal',
        detail: 'cli ledger check --json',
      });
    } finally {
      await t.db.query('UPDATE float_accounts SET balance_minor = balance_minor - 100 WHERE msisdn = $1', [
        AGENT_A,
      ]);
    }
    expect((await run(['ledger', 'check'])).code).toBe(0);
  });

  it('a succeeded purchase whose confirms do not add up: exit 1 naming it', async () => {
    await t.db.query(
      `UPDATE purchases SET record = jsonb_set(record, '{confirmAttempts}', '2') WHERE id = $1`,
      [sold.id],
    );
    try {
      expect(await run(['ledger', 'check'])).toMatchObject({
        code: 1,
        out: `purchase ${sold.id}: confirmAttempts 2 but 1 confirms started`,
      });
    } finally {
      await t.db.query(
        `UPDATE purchases SET record = jsonb_set(record, '{confirmAttempts}', '1') WHERE id = $1`,
        [sold.id],
      );
    }
  });

  it('without DATABASE_URL: one line, exit 2', async () => {
    expect(await run(['ledger', 'check'], { DATABASE_URL: '' })).toEqual({
      code: 2,
      out: '',
      err: expect.stringMatching(/^error: without DATABASE_URL [^\n]*set DATABASE_URL[^\n]*$/),
    });
    expect((await run(['ledger'])).code).toBe(2);
  });
});

describe('report daily', () => {
  it("prints the day's sales, agents and open purchases; --csv and --json carry the same", async () => {
    const text = await run(['report', 'daily', '--date', '2026-11-25']);
    expect(text.code).toBe(0);
    expect(text.out.split('\n')).toEqual([
      'daily report 2026-11-25 (Africa/Gaborone: 2026-11-24T22:00:00.000Z → 2026-11-25T22:00:00.000Z)',
      'sales (succeeded):',
      `  ELECTRICITY BPC USSD: 1 sold, amount BWP 100.00, charges BWP 1.50, total BWP 101.50`,
      'agents:',
      expect.stringMatching(
        /^ {2}267\*{4}0011#[0-9a-f]{4} \(removed\): 0 sales, BWP 0\.00; commission BWP 0\.00; float in BWP 500\.00, out BWP 0\.00 \(transfers in BWP 0\.00, out BWP 0\.00\), opening none, closing BWP 500\.00 \(held BWP 0\.00\)$/,
      ),
      expect.stringMatching(/^ {2}267\*{4}0012#/),
      "open at the day's end:",
      '  none',
    ]);
    expect(text.out).not.toContain(AGENT_A);

    const csv = await run(['report', 'daily', '--date', '2026-11-25', '--csv']);
    expect(csv.code).toBe(0);
    const rows = csv.out.split('\r\n');
    expect(rows[0]).toMatch(/^section,date,/);
    expect(rows.filter((r) => r.startsWith('sales,'))).toHaveLength(1);
    expect(csv.out).not.toContain(AGENT_A);

    const json = JSON.parse(
      (await run(['report', 'daily', '--date', '2026-11-25', '--json', '--reveal'])).out,
    );
    expect(json.sales).toEqual([
      expect.objectContaining({
        productType: 'ELECTRICITY',
        count: 1,
        total: { currency: 'BWP', minor: 10_150 },
      }),
    ]);
    expect(json.agents.map((a: { msisdn: string }) => a.msisdn)).toEqual([AGENT_A, AGENT_B]);
  });

  it('refuses a date that is not one, and a missing one, with exit 2', async () => {
    expect(await run(['report', 'daily', '--date', '2026-02-30'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/date/),
    });
    expect((await run(['report', 'daily'])).code).toBe(2);
    expect((await run(['report', 'daily', '--date', '2026-11-25', '--csv', '--json'])).code).toBe(2);
  });
});
