import { hash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import axios from 'axios';
import { Redis } from 'ioredis';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { newPhone, outbox, startTestGateway } from '../e2e/harness';
import { OwnRedisServer } from '../support/redis-server';
import { until } from '../support/wait';
import { dumpSchema, pinsReversedFrom } from './pin-scan';

/**
 * An agent's PIN sent by SMS, in well- and ill-formed commands, with and without a provider
 * message id, is found nowhere: not in a Redis key or value, not in the append-only file (every
 * write ever made), not in any column of any table of the gateway's records (PostgreSQL), and
 * not as a digest that trying every 4–6 digit PIN reverses.
 */

const ADMIN = 'agent-admin-token-0123456789';
const auth = { headers: { authorization: `Bearer ${ADMIN}` } };
const server = new OwnRedisServer('aof-always');
let redis: Redis;
let gateway: Gateway;

beforeAll(async () => {
  await server.start();
  redis = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  gateway = await startTestGateway({
    REDIS_URL: server.url,
    REDIS_PREFIX: 'pinscan',
    ADMIN_TOKEN: ADMIN,
    SMS_REPLIES_PER_MIN: '200',
    SMS_RATE_PER_MIN: '200',
  });
});
afterAll(async () => {
  await gateway?.close();
  redis?.disconnect();
  await server.destroy();
});

let seq = 0;
/** One SMS over the Africa's Talking route (with an id) or the generic one (without), answered. */
async function send(from: string, text: string, withId: boolean): Promise<string> {
  const before = (await outbox(gateway, from)).length;
  if (withId)
    await axios.post(
      `${gateway.url}/sms/africastalking`,
      new URLSearchParams({
        id: `pin-${process.pid}-${++seq}`,
        from: `+${from}`,
        to: '12345',
        text,
        date: 'now',
      }),
    );
  else
    await axios.post(`${gateway.url}/sms/inbound`, {
      from: `+${from}`,
      to: '12345',
      text,
      receivedAt: 'now',
    });
  const messages = await until(`an answer to ${from}`, async () => {
    const all = await outbox(gateway, from);
    return all.length > before ? all : null;
  });
  return messages[0].message;
}

async function agentWithPin(pin: string): Promise<string> {
  const msisdn = newPhone();
  const added = await axios.post(`${gateway.url}/admin/agents`, { msisdn, name: 'Kgosi', float: true }, auth);
  await axios.post(
    `${gateway.url}/admin/agents/${msisdn}/credits`,
    { amount: 'BWP 5000.00', reference: `top-${msisdn}` },
    auth,
  );
  expect(await send(msisdn, `PIN ${added.data.oneTimePin as string} ${pin}`, true)).toBe(
    'Your PIN is changed.',
  );
  return msisdn;
}

/** A quote for a sale of BWP 1000 (a 4-digit amount), with a code that is not the PIN. */
async function quote(agent: string, pin: string, withId: boolean): Promise<string> {
  for (;;) {
    const answer = await send(agent, `SELL ELEC ${TEST_METERS.active} 1000 ${newPhone()}`, withId);
    const code = /YES (\d{4}) <PIN>/.exec(answer)?.[1];
    if (!code) throw new Error(`no quote: ${answer}`);
    if (code !== pin) return code;
  }
}

/** Every key and value in the server, whatever its type. */
async function dump(): Promise<string> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 500);
    cursor = next;
    for (const key of keys) {
      out.push(key);
      const type = await redis.type(key);
      if (type === 'string') out.push((await redis.get(key)) ?? '');
      else if (type === 'hash') out.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === 'list') out.push(JSON.stringify(await redis.lrange(key, 0, -1)));
      else if (type === 'zset') out.push(JSON.stringify(await redis.zrange(key, '0', '-1', 'WITHSCORES')));
      else if (type === 'set') out.push(JSON.stringify(await redis.smembers(key)));
      else if (type === 'stream') out.push(JSON.stringify(await redis.xrange(key, '-', '+')));
      else out.push(`<${type}>`);
    }
  } while (cursor !== '0');
  return out.join('\n');
}

/** Every file of the append-only log: every write the server ever took. */
async function appendOnlyFile(): Promise<string> {
  const dir = ((await redis.config('GET', 'dir')) as string[])[1];
  const sub = ((await redis.config('GET', 'appenddirname')) as string[])[1];
  const files = readdirSync(join(dir, sub));
  expect(files.some((f) => f.endsWith('.incr.aof'))).toBe(true);
  return files.map((f) => readFileSync(join(dir, sub, f), 'latin1')).join('\n');
}

/** The PIN as its own number (hex ids around it are not it; `BAL418529` is). */
const standalone = (pin: string) => new RegExp(`(?<![0-9a-f])${pin}(?![0-9a-f])`, 'i');

/** How a text is digested by someone who does not hold a secret: the attacker's recipes. */
const recipes: ((text: string) => string)[] = [
  (t) => t,
  (t) => t.trim(),
  (t) => t.trim().toUpperCase(),
  (t) => t.trim().toLowerCase(),
];
// The one-shot hash: the million in the attack below take under half createHash's time.
const sha256 = (text: string) => hash('sha256', text, 'hex');

it('keeps no PIN, and no digest a PIN dictionary reverses, in Redis, its AOF or the records', async () => {
  const pin6 = '418529';
  const pin4 = '7351';
  const six = await agentWithPin(pin6);
  const four = await agentWithPin(pin4);
  const texts: { agent: string; pin: string; text: string }[] = [];
  const answers: string[] = [];

  for (const withId of [true, false]) {
    for (const [agent, pin] of [
      [six, pin6],
      [four, pin4],
    ] as const) {
      const say = async (text: string) => {
        texts.push({ agent, pin, text });
        const answer = await send(agent, text, withId);
        answers.push(answer);
        return answer;
      };
      // Well-formed: the gate takes the PIN out; the sale of a 4-digit amount still goes through.
      expect(await say(`BAL ${pin}`)).toMatch(/^Float: /);
      expect(await say(`SALES ${pin}`)).not.toMatch(/PIN/);
      const code = await quote(agent, pin, withId);
      // Swapped: the PIN where the code goes. Never counted against the real code, never kept.
      expect(await say(`YES ${pin} ${code}`)).not.toMatch(/Wrong PIN/);
      expect(await say(`YES ${code} ${pin}`)).not.toMatch(/PIN/);
      // Ill-formed: answered by the grammar, the PIN masked before anything is kept.
      for (const text of [
        `PIN ${pin} 12`,
        `PIN ${pin}`,
        `BAL ${pin} now`,
        `SALES ${pin} please`,
        `BAL${pin}`,
        `HELP ${pin}`,
        `NO ${pin}`,
        `TOKEN ${pin}`,
        `ELEC ${pin} 100`,
        `LANG ${pin}`,
        `BAL ${pin.replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d)))} now`,
      ])
        await say(text);
      // A well-formed sale with the PIN stuck on the end (read as the customer's number).
      await say(`SELL ELEC ${TEST_METERS.active} 1000 ${newPhone()} ${pin}`);
      // And the agent still works: the PIN was never counted wrong by the above.
      expect(await say(`BAL ${pin}`)).toMatch(/^Float: /);
    }
  }
  expect(answers.join('\n')).toMatch(/Sale .*Electricity/);

  const records = await dumpSchema(gateway.records);
  expect(records.tables).toEqual(expect.arrayContaining(['agents', 'purchases', 'float_entries']));
  expect(records.text).toContain(six);
  const stored = `${await dump()}\n${await appendOnlyFile()}\n${records.text}`;
  for (const pin of [pin6, pin4])
    expect({ pin, found: standalone(pin).test(stored) }).toEqual({ pin, found: false });
  for (const pin of [pin6, pin4])
    expect({ pin, inReplies: standalone(pin).test(answers.join('\n')) }).toEqual({ pin, inReplies: false });

  // Digests: every hex string long enough to be one, checked against each text's digests ...
  const hexes = new Set((stored.match(/[0-9a-f]{12,}/g) ?? []).map((h) => h.toLowerCase()));
  const prefixes = (digest: string) => [12, 16, 20, 24, 32, 40, 64].map((n) => digest.slice(0, n));
  const reversed = texts.filter(({ text }) =>
    recipes.some((recipe) => prefixes(sha256(recipe(text))).some((p) => hexes.has(p))),
  );
  expect(reversed).toEqual([]);
  // ... and the attack itself: every 4–6 digit PIN in `BAL <pin>`, against the stored digests.
  const found: string[] = [];
  for (let length = 4; length <= 6; length += 1)
    for (let n = 0; n < 10 ** length; n += 1) {
      const candidate = String(n).padStart(length, '0');
      const digest = sha256(`BAL ${candidate}`).slice(0, 24);
      if (hexes.has(digest)) found.push(candidate);
    }
  expect(found).toEqual([]);
  // ... and every unsalted digest of the bare PIN.
  expect(pinsReversedFrom(stored)).toEqual([]);
}, 240_000);
