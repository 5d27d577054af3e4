import request from 'supertest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { captureLogs } from '../vas/helpers';
import { keysUnder, testRedis } from '../support/redis';
import { ADMIN_TOKEN, agentAdminApp } from './harness';

/**
 * A PIN set through the API is found nowhere: not in any Redis key or value, not in an admin
 * answer (the one-time PIN only in the one that set it), not in a log line.
 */

const { redis, prefix, cleanup } = testRedis('agents-pin');
let sandbox: RunningSandbox;
let logs: ReturnType<typeof captureLogs>;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
  logs = captureLogs();
});
afterAll(async () => {
  logs.stop();
  await sandbox.close();
  await cleanup();
});

/** Every key under `prefix` and everything in it, as text. */
async function dumpRedis(): Promise<string> {
  const out: string[] = [];
  for (const key of await keysUnder(redis, prefix)) {
    out.push(key);
    const type = await redis.type(key);
    if (type === 'hash') out.push(JSON.stringify(await redis.hgetall(key)));
    else if (type === 'list') out.push(...(await redis.lrange(key, 0, -1)));
    else if (type === 'zset') out.push(...(await redis.zrange(key, '0', '-1', 'WITHSCORES')));
    else if (type === 'set') out.push(...(await redis.smembers(key)));
    else if (type === 'string') out.push((await redis.get(key)) ?? '');
    else out.push(`<${type}>`);
  }
  return out.join('\n');
}

it('never stores, returns or logs a PIN', async () => {
  const { app, agents } = agentAdminApp(redis, prefix, sandbox.url);
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
  expect(await agents.registry.verifyPin(msisdn, '000111')).toMatchObject({ status: 'wrong' });
  expect(await agents.registry.changePin(msisdn, oneTimePin, chosen)).toEqual({ status: 'changed' });
  const check = await agents.registry.verifyPin(msisdn, chosen);
  if (check.status !== 'ok') throw new Error('expected ok');
  const candidate = await agents.registry.newPinCandidate(msisdn, staged);
  if (!candidate.ok) throw new Error('expected a candidate');
  expect(await agents.registry.candidateMatches(candidate.candidate, staged)).toBe(true);
  expect(await agents.registry.setNewPin(msisdn, candidate.candidate, check.pinVersion)).toEqual({
    status: 'changed',
  });
  expect(await agents.registry.verifyPin(msisdn, staged)).toMatchObject({ status: 'ok' });
  for (let i = 0; i < 3; i += 1) await agents.registry.verifyPin(msisdn, chosen);

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

  const redisText = await dumpRedis();
  const logText = logs.lines.join('\n');
  expect(logText).toContain('agent registered');
  for (const pin of [oneTimePin, chosen, staged]) {
    expect({ pin, inRedis: redisText.includes(pin) }).toEqual({ pin, inRedis: false });
    expect({ pin, inAnswers: answers.some((a) => a.includes(pin)) }).toEqual({ pin, inAnswers: false });
    expect({ pin, inLogs: logText.includes(pin) }).toEqual({ pin, inLogs: false });
  }
  expect(answers.join('\n')).not.toMatch(/pinHash|"hash"|salt/i);
});
