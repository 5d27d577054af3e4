import { main } from '../../src/cli/main';
import { SqlAuditTrail } from '../../src/purchases/care';
import { SqlSpendStore } from '../../src/spend';
import { testDatabase, type TestDatabase } from '../support/database';

/** `npm run cli -- blocklist …` on the records in PostgreSQL (a schema of its own), in-process with captured output. */

let t: TestDatabase;
beforeAll(async () => {
  t = await testDatabase('blocklist_cli');
});
afterAll(() => t.cleanup());

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['blocklist', ...argv], {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    env: { NODE_ENV: 'test', DATABASE_URL: t.url, DATABASE_SCHEMA: t.schema, ...env },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

it('adds, lists and removes numbers and identifiers, normalised as the gateway checks them', async () => {
  // --reveal: the numbers in full (audited, see below).
  expect(await run(['add', '--msisdn', '+267 71 234 567', '--reveal'])).toMatchObject({
    code: 0,
    out: 'msisdn 26771234567 blocked',
  });
  expect(await run(['add', '--msisdn', '71234567', '--reveal'])).toMatchObject({
    code: 0,
    out: 'msisdn 26771234567 was already blocked',
  });
  expect(await run(['add', '--identifier', '0412 345 6789', '--reveal'])).toMatchObject({
    code: 0,
    out: 'identifier 04123456789 blocked',
  });
  const store = new SqlSpendStore(t.db);
  expect(await store.isBlocked('msisdn', '26771234567')).toBe(true);
  expect((await run(['list', '--json', '--reveal'])).out).toBe(
    JSON.stringify({ msisdn: ['26771234567'], identifier: ['04123456789'] }, null, 2),
  );
  expect(await run(['remove', '--msisdn', '26771234567'])).toMatchObject({
    code: 0,
    out: expect.stringMatching(/^msisdn 267\*{4}4567#[0-9a-f]{4} unblocked$/),
  });
  expect(await store.isBlocked('msisdn', '26771234567')).toBe(false);
});

it('prints numbers masked unless --reveal, two numbers told apart; a reveal is audited first (#27 item 4)', async () => {
  // Same country code, same last four digits: the masking alone would print them the same.
  for (const msisdn of ['26771230001', '26772340001']) await run(['add', '--msisdn', msisdn]);
  const listed = await run(['list', '--json']);
  expect(listed.out).not.toMatch(/26771230001|26772340001/);
  const masked = JSON.parse(listed.out).msisdn as string[];
  expect(masked).toHaveLength(2);
  for (const m of masked) expect(m).toMatch(/^267\*{4}0001#[0-9a-f]{4}$/);
  expect(masked[0]).not.toBe(masked[1]);
  expect((await run(['list'])).out).toContain(`msisdn: ${masked.join(' ')}\n`);

  const trail = new SqlAuditTrail(t.db);
  const before = (await trail.list()).length;
  const revealed = await run(['list', '--json', '--reveal'], { USER: 'thabo' });
  expect(JSON.parse(revealed.out).msisdn).toEqual(['26771230001', '26772340001']);
  const entries = await trail.list();
  expect(entries).toHaveLength(before + 1);
  expect(entries[0]).toMatchObject({
    actor: 'cli:thabo',
    action: 'reveal',
    detail: 'cli blocklist list --json',
  });
  for (const msisdn of ['26771230001', '26772340001']) await run(['remove', '--msisdn', msisdn]);
});

it('refuses bad input with a usage error and changes nothing', async () => {
  expect((await run(['add'])).code).toBe(2);
  expect((await run(['add', '--msisdn', 'not-a-number'])).err).toMatch(/not a phone number/);
  expect((await run(['drop', '--msisdn', '26771234567'])).code).toBe(2);
  // Without DATABASE_URL the records are the gateway's (in memory under NODE_ENV=test): one line.
  expect(await run(['list'], { DATABASE_URL: '' })).toEqual({
    code: 2,
    out: '',
    err: expect.stringMatching(/^error: without DATABASE_URL .*set DATABASE_URL .*\/admin\/blocklist[^\n]*$/),
  });
  expect(await new SqlSpendStore(t.db).blocked('msisdn')).toEqual([]);
});
