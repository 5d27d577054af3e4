import { main, EXIT } from '../../src/cli/main';
import type { PaymentNotice } from '../../src/payments/port';
import { SqlPaymentStore } from '../../src/payments/store/sql';
import { testDatabase, type TestDatabase } from '../support/database';

/**
 * `npm run cli -- payments unmatched` and `resolve-unmatched` on records in PostgreSQL (a schema
 * of its own): success notices kept by the store at set ages, as the callback route keeps them.
 */

const HOUR = 3_600_000;
const PAYER = '26771230011';

let t: TestDatabase;
let old: string;
let older: string;
let young: string;

const paid = (ref: string, payerMsisdn: string, minor: number): PaymentNotice => ({
  type: 'payment',
  state: 'successful',
  providerReference: ref,
  amount: { currency: 'BWP', minor },
  receipt: `RC${ref.slice(-4).toUpperCase()}`,
  payerMsisdn,
});

async function keptAgo(age: number, notice: PaymentNotice): Promise<string> {
  const store = new SqlPaymentStore({ db: t.db, clock: () => new Date(Date.now() - age) });
  return (await store.keepNotice('mpesa', notice)).id;
}

beforeAll(async () => {
  t = await testDatabase('payments_cli');
  older = await keptAgo(30 * HOUR, paid('ws_CO_older', '26771230012', 5_000));
  old = await keptAgo(25 * HOUR, paid('ws_CO_old1', PAYER, 10_150));
  // Young: its payment may still take it.
  young = await keptAgo(HOUR, paid('ws_CO_young', '26771230013', 2_000));
});
afterAll(() => t.cleanup());

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    env: { NODE_ENV: 'test', DATABASE_URL: t.url, DATABASE_SCHEMA: t.schema, USER: 'neo' },
  });
  return { code, out, err: err.join('\n') };
}

it('lists those past their matching time, newest first, the payer masked', async () => {
  const { code, out, err } = await run(['payments', 'unmatched']);
  expect({ code, err }).toEqual({ code: EXIT.ok, err: '' });
  expect(out).toHaveLength(3);
  expect(out[0]).toMatch(
    new RegExp(
      `^\\S+Z  notice ${old}  no payment  mpesa  ws_CO_old1  BWP 101\\.50  receipt RCOLD1  payer 267\\*{4}0011#[0-9a-f]{4}$`,
    ),
  );
  expect(out[1]).toContain(`notice ${older}  no payment  mpesa  ws_CO_older  BWP 50.00`);
  // The embedded M-Pesa's default: its window + margin + a day of re-checks.
  expect(out[2]).toBe('2 unmatched paid notice(s) older than 24h 2m 30s');
  expect(out.join('\n')).not.toContain(PAYER);
});

it('--limit, --older-than-ms and --json as the admin route', async () => {
  const one = await run(['payments', 'unmatched', '--limit', '1', '--json']);
  expect(one.code).toBe(EXIT.ok);
  const shown = JSON.parse(one.out.join('\n'));
  expect(shown).toMatchObject({
    total: 2,
    count: 1,
    notices: [{ id: old, providerReference: 'ws_CO_old1' }],
  });
  expect(shown.notices[0].payerMsisdn).toMatch(/^267\*{4}0011#[0-9a-f]{4}$/);
  const all = await run(['payments', 'unmatched', '--older-than-ms', '0']);
  expect(all.out.at(-1)).toBe('3 unmatched paid notice(s) older than 0 ms');
});

it('--reveal shows the number, written to the audit trail first', async () => {
  const { code, out } = await run(['payments', 'unmatched', '--limit', '1', '--reveal']);
  expect(code).toBe(EXIT.ok);
  expect(out[0]).toContain(`payer ${PAYER}`);
  const trail = await t.db.query<{ actor: string; detail: string }>(
    "SELECT actor, detail FROM care_audit WHERE action = 'reveal' ORDER BY seq DESC LIMIT 1",
  );
  expect(trail.rows[0]).toEqual({ actor: 'cli:neo', detail: 'cli payments unmatched --limit 1' });
});

it.each([
  [['--limit', '0'], '--limit must be a whole number from 1 to 500'],
  [['--limit', 'ten'], '--limit must be a whole number from 1 to 500'],
  [
    ['--older-than-ms', '1.5'],
    '--older-than-ms must be a whole number of milliseconds from 0 to a year (366 days)',
  ],
])('%j: the one-line error and the usage, exit 2, nothing listed', async (flags, error) => {
  const { code, out, err } = await run(['payments', 'unmatched', ...flags]);
  expect({ code, out }).toEqual({ code: EXIT.usage, out: [] });
  expect(err.split('\n')[0]).toBe(`error: ${error}`);
  expect(err.split('\n')[1]).toMatch(/^usage: npm run cli -- payments <command>/);
});

it.each([[['list']], [['unmatched', '12']], [['resolve-unmatched']], [['resolve-unmatched', '1', '2']]])(
  '%j: a command it does not know, or without its id: the usage, exit 2',
  async (argv) => {
    const { code, out, err } = await run(['payments', ...argv, '--note', 'x']);
    expect({ code, out }).toEqual({ code: EXIT.usage, out: [] });
    expect(err).toMatch(/^usage: npm run cli -- payments <command>/);
  },
);

describe('resolve-unmatched', () => {
  /** Every notice's standing and the whole audit trail: what a refusal must leave alone. */
  const everything = async () => ({
    notices: (
      await t.db.query(
        'SELECT id, payment_id, outcome, notice, resolved_at, resolved_by, resolution FROM payment_notices ORDER BY id',
      )
    ).rows,
    audit: (await t.db.query('SELECT count(*)::int AS n FROM care_audit')).rows,
  });

  it('closes one with a note: it leaves the list, audited as cli:$USER', async () => {
    const { code, out, err } = await run([
      'payments',
      'resolve-unmatched',
      older,
      '--note',
      'Reversed RCOLDER',
    ]);
    expect({ code, out, err }).toEqual({
      code: EXIT.ok,
      out: [`payment notice ${older} resolved by cli:neo`],
      err: '',
    });
    const listed = await run(['payments', 'unmatched']);
    expect(listed.out).toHaveLength(2);
    expect(listed.out[0]).toContain(`notice ${old}`);
    expect(listed.out[1]).toBe('1 unmatched paid notice(s) older than 24h 2m 30s');
    const trail = await t.db.query<Record<string, unknown>>(
      'SELECT actor, action, note, detail FROM care_audit ORDER BY seq DESC LIMIT 1',
    );
    expect(trail.rows[0]).toEqual({
      actor: 'cli:neo',
      action: 'resolve_unmatched',
      note: 'Reversed RCOLDER',
      detail: `payment notice ${older} (no payment): mpesa ws_CO_older, BWP 50.00, receipt RCLDER, payer 267****0012`,
    });
  });

  it('--json: the notice with its resolution, the payer masked', async () => {
    const { code, out } = await run([
      'payments',
      'resolve-unmatched',
      old,
      '--note',
      'Not ours: a bank test',
      '--json',
    ]);
    expect(code).toBe(EXIT.ok);
    const shown = JSON.parse(out.join('\n'));
    expect(shown).toMatchObject({
      id: old,
      payerMsisdn: expect.stringMatching(/^267\*{4}0011#[0-9a-f]{4}$/),
      resolution: { by: 'cli:neo', note: 'Not ours: a bank test' },
    });
    expect((await run(['payments', 'unmatched'])).out).toEqual([
      '0 unmatched paid notice(s) older than 24h 2m 30s',
    ]);
  });

  // Notices by name: their ids are known once beforeAll has kept them.
  const idOf = (name: string): string => ({ older, young })[name] ?? name;

  it.each([
    [['older', '--note', 'again'], EXIT.failed, 'payment notice older was resolved already, by cli:neo at '],
    [['young', '--note', 'too soon'], EXIT.failed, 'payment notice young came at '],
    [['999999999', '--note', 'x'], EXIT.failed, 'no payment notice 999999999'],
    [['older'], EXIT.usage, 'resolve-unmatched needs --note TEXT (what was done with the money)'],
    [['older', '--note', '  '], EXIT.usage, 'note must be a non-empty text of at most 500 characters'],
  ])('%j: one line saying why, nothing changed', async ([name, ...flags], exit, error) => {
    const before = await everything();
    const { code, out, err } = await run(['payments', 'resolve-unmatched', idOf(name), ...flags]);
    expect({ code, out }).toEqual({ code: exit, out: [] });
    expect(err.split('\n')).toHaveLength(1);
    expect(err).toContain(
      `error: ${error.replace(/^payment notice (\w+)/, (_all, n: string) => `payment notice ${idOf(n)}`)}`,
    );
    expect(await everything()).toEqual(before);
  });
});
