import request from 'supertest';
import type { Database } from '../../src/records/database';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { captureLogs } from '../vas/helpers';
import { testDatabase } from '../support/database';
import { ADMIN_TOKEN, agentAdminApp, PIN_SECRET } from './harness';
import { dumpSchema, isPepperedScryptOf, isSaltedScryptOf, pinsReversedFrom, type PinRow } from './pin-scan';

/**
 * A PIN set through the API is found nowhere: not in any column of any table of the records,
 * nor as a digest a dictionary of 4–6 digit PINs reverses (the one thing kept is scrypt of
 * HMAC(server secret, PIN) with the agent's own random salt: with the rows and without the
 * secret, trying every PIN finds none), not in an admin answer (the one-time PIN only in the
 * one that set it), not in a log line.
 */

let db: Database;
let cleanup: () => Promise<void>;
let sandbox: RunningSandbox;
let logs: ReturnType<typeof captureLogs>;
beforeAll(async () => {
  ({ db, cleanup } = await testDatabase('agents_pin'));
  sandbox = await startSandbox({ port: 0, silent: true });
  logs = captureLogs();
});
afterAll(async () => {
  logs.stop();
  await sandbox.close();
  await cleanup();
});

it('never stores, returns or logs a PIN', async () => {
  const { app, agents } = agentAdminApp(db, sandbox.url);
  const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
  const msisdn = '26771234567';
  const chosen = '480273';
  const staged = '591846';
  const answers: string[] = [];

  const created = await request(app)
    .post('/admin/agents')
    .set(auth)
    .send({ msisdn, name: 'Kgosi', float: true });
  const oneTimePin: string = created.body.oneTimePin;
  expect(oneTimePin).toMatch(/^\d{6}$/);

  // The agent's own PIN, chosen in one step (SMS) and then over several screens (USSD).
  expect(await agents.pins.verifyPin(msisdn, '000111')).toMatchObject({ status: 'wrong' });
  expect(await agents.pins.changePin(msisdn, oneTimePin, chosen)).toEqual({ status: 'changed' });
  const check = await agents.pins.verifyPin(msisdn, chosen);
  if (check.status !== 'ok') throw new Error('expected ok');
  const candidate = await agents.pins.newPinCandidate(msisdn, staged);
  if (!candidate.ok) throw new Error('expected a candidate');
  expect(await agents.pins.candidateMatches(candidate.candidate, staged)).toBe(true);
  expect(await agents.pins.setNewPin(msisdn, candidate.candidate, check.pinVersion)).toEqual({
    status: 'changed',
  });
  expect(await agents.pins.verifyPin(msisdn, staged)).toMatchObject({ status: 'ok' });
  for (let i = 0; i < 3; i += 1) await agents.pins.verifyPin(msisdn, chosen);

  const calls: (() => Promise<request.Response>)[] = [
    async () => request(app).get('/admin/agents').set(auth),
    async () => request(app).get(`/admin/agents/${msisdn}`).set(auth),
    async () =>
      request(app)
        .post(`/admin/agents/${msisdn}/credits`)
        .set(auth)
        .send({ amount: 'BWP 100.00', reference: 'R-1' }),
    async () => request(app).get(`/admin/agents/${msisdn}/statement`).set(auth),
    async () => request(app).post(`/admin/agents/${msisdn}/disable`).set(auth),
    async () => request(app).post(`/admin/agents/${msisdn}/enable`).set(auth),
  ];
  for (const call of calls) {
    const res = await call();
    expect(res.status).toBeLessThan(300);
    answers.push(res.text);
  }

  // A second agent given the same PIN: its own salt, so its own hash.
  const other = '26771234568';
  const second = await request(app)
    .post('/admin/agents')
    .set(auth)
    .send({ msisdn: other, name: 'B', float: true });
  expect(await agents.pins.changePin(other, second.body.oneTimePin, staged)).toEqual({
    status: 'changed',
  });

  const { tables, text: stored } = await dumpSchema(db);
  expect(tables).toEqual(expect.arrayContaining(['agents', 'float_accounts', 'float_entries', 'care_audit']));
  expect(stored).toContain(msisdn);
  const logText = logs.lines.join('\n');
  expect(logText).toContain('agent registered');
  for (const pin of [oneTimePin, chosen, staged, second.body.oneTimePin as string]) {
    expect({ pin, inDatabase: stored.includes(pin) }).toEqual({ pin, inDatabase: false });
    expect({ pin, inAnswers: answers.some((a) => a.includes(pin)) }).toEqual({ pin, inAnswers: false });
    expect({ pin, inLogs: logText.includes(pin) }).toEqual({ pin, inLogs: false });
  }
  expect(answers.join('\n')).not.toMatch(/pinHash|"hash"|salt/i);

  // No unsalted digest of any 4–6 digit PIN, in any column.
  expect(pinsReversedFrom(stored)).toEqual([]);
  // What is kept is scrypt of HMAC(secret, PIN) with a random salt per agent: the same PIN, two
  // different hashes; the PIN verifies with the secret and not without it.
  const rows = await db.query<PinRow & { msisdn: string }>(
    'SELECT msisdn, pin_hash, pin_salt, pin_params FROM agents ORDER BY msisdn',
  );
  expect(rows.rows.map((row) => [row.msisdn, isPepperedScryptOf(staged, PIN_SECRET, row)])).toEqual([
    [msisdn, true],
    [other, true],
  ]);
  expect(rows.rows.map((row) => row.pin_params.pepper)).toEqual([true, true]);
  // The dictionary attack on the rows alone: scrypt of each candidate with the row's salt and
  // parameters (or HMAC under an empty key) never reproduces a row's hash. Trying the right PIN
  // stands for trying all 10^6: any other PIN matching would be an scrypt collision.
  for (const row of rows.rows)
    for (const pin of [staged, chosen, oneTimePin])
      expect({ pin, withoutSecret: isSaltedScryptOf(pin, row) || isPepperedScryptOf(pin, '', row) }).toEqual({
        pin,
        withoutSecret: false,
      });
  expect(rows.rows[0].pin_salt).not.toBe(rows.rows[1].pin_salt);
  expect(rows.rows[0].pin_hash).not.toBe(rows.rows[1].pin_hash);
}, 120_000);
