import axios from 'axios';
import { Redis } from 'ioredis';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { pinsReversedFrom } from '../agents/pin-scan';
import { deleteKeysUnder, keysUnder, TEST_REDIS_URL, testPrefix } from '../support/redis';
import { captureLogs } from '../vas/helpers';
import { hop, newPhone, OUTBOX_ADMIN_TOKEN, startTestGateway, waitForSms } from './harness';

/**
 * An agent's dialogue that began with a one-dial shortcut (`*384*1*<meter>#`) and whose record
 * Redis lost (flushed, restarted empty) just around the PIN: the aggregator's next cumulative
 * text (`1*<meter>*<PIN>`) has a shortcut's shape, its PIN where an amount (or an identifier)
 * goes, and the text alone cannot tell it from a real `1*<meter>*<amount>`. The dialogue starts
 * again at the PIN prompt, and no digit of the PIN is kept: not in a Redis key or value under
 * the gateway's prefix (the session's text, request key, snapshot), not in a log line. No group a
 * PIN could be is read for an agent, so no wrong PIN is counted and the amount is asked on its
 * screen. An agent's real shortcut still asks for the PIN first and reads what no PIN can be.
 */

const prefix = testPrefix('agent-short-lost');
const auth = { headers: { authorization: `Bearer ${OUTBOX_ADMIN_TOKEN}` } };
const PIN_PROMPT = 'Agent: enter your PIN:';
let gateway: Gateway;
let redis: Redis;
let logs: ReturnType<typeof captureLogs>;
let seq = 0;
/** Every PIN the agents of this file typed. */
const pins = new Set<string>();

beforeAll(async () => {
  redis = new Redis(TEST_REDIS_URL);
  logs = captureLogs();
  gateway = await startTestGateway({
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    ADMIN_TOKEN: OUTBOX_ADMIN_TOKEN,
    DEV_ROUTES: 'true',
  });
});

afterAll(async () => {
  await gateway.close();
  logs.stop();
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
});

async function agentWithPin(pin: string): Promise<string> {
  const msisdn = newPhone();
  pins.add(pin);
  const added = await axios.post(
    `${gateway.url}/admin/agents`,
    { msisdn, name: 'Mma Dikeledi', float: true },
    auth,
  );
  await axios.post(
    `${gateway.url}/admin/agents/${msisdn}/credits`,
    { amount: 'BWP 1800.00', reference: `short-lost-${msisdn}` },
    auth,
  );
  await axios.post(`${gateway.url}/sms/inbound`, {
    id: `short-lost-pin-${msisdn}-${++seq}`,
    from: msisdn,
    to: '1',
    text: `PIN ${added.data.oneTimePin as string} ${pin}`,
    receivedAt: 'now',
  });
  expect((await waitForSms(gateway, msisdn, 1))[0].message).toBe('Your PIN is changed.');
  return msisdn;
}

async function failedAttempts(msisdn: string): Promise<number> {
  return (await axios.get(`${gateway.url}/admin/agents/${msisdn}`, auth)).data.agent.failedAttempts as number;
}

/** Every key under the gateway's prefix and every value, whatever its type. */
async function stored(): Promise<string> {
  const out: string[] = [];
  for (const key of await keysUnder(redis, prefix)) {
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
  return out.join('\n');
}

/**
 * The PIN as its own number: not a run of a longer one (a meter, a phone number, a hex id), nor
 * the last digits of a masked number (`267****5937`).
 */
const standalone = (pin: string) => new RegExp(`(?<![0-9a-f]|\\*{4})${pin}(?![0-9a-f])`, 'i');

/** Where the PIN is found: Redis under the prefix, the log lines. */
async function pinFound(pin: string): Promise<{ inRedis: boolean; inLogs: boolean }> {
  return {
    inRedis: standalone(pin).test(await stored()),
    inLogs: standalone(pin).test(logs.lines.join('\n')),
  };
}

const METER = TEST_METERS.active;

it.each([
  // `*384*1*<meter>#`, lost on the PIN prompt: the PIN where the amount goes.
  ['1*<meter>', '5937', [`1*${METER}`], (pin: string) => `1*${METER}*${pin}`, /^Enter the amount/],
  // `*384*1#`, lost on the PIN prompt: the PIN where the meter goes (a 6-digit PIN).
  ['1', '418529', ['1'], (pin: string) => `1*${pin}`, /^Enter meter number/],
  // `*384*1#`, the PIN answered, lost on the meter prompt: the PIN, then the meter.
  ['1, its PIN', '7351', ['1', '1*<PIN>'], (pin: string) => `1*${pin}*${METER}`, /^Enter meter number/],
])(
  'a dialogue dialled as %s and lost around the PIN starts again at the PIN prompt, its PIN kept nowhere',
  async (_, pin, before, lostText, afterPin) => {
    const agent = await agentWithPin(pin);
    const session = `short-lost-${agent}`;
    const typed = before.map((text) => text.replace('<PIN>', pin));
    expect((await hop(gateway, session, agent, typed[0])).screen).toBe(PIN_PROMPT);
    for (const text of typed.slice(1)) expect((await hop(gateway, session, agent, text)).end).toBe(false);
    await deleteKeysUnder(redis, `${prefix}:ussd:`);

    const text = lostText(pin);
    const again = await hop(gateway, session, agent, text);
    expect({ again: again.screen, ...(await pinFound(pin)) }).toEqual({
      again: PIN_PROMPT,
      inRedis: false,
      inLogs: false,
    });
    // The agent answers the prompt it was shown: its PIN, right, and the sale goes on from what no
    // PIN could be (the product, a meter); the rest is asked on its screen.
    const next = await hop(gateway, session, agent, `${text}*${pin}`);
    expect({
      next: next.screen,
      failedAttempts: await failedAttempts(agent),
      ...(await pinFound(pin)),
    }).toEqual({
      next: expect.stringMatching(afterPin),
      failedAttempts: 0,
      inRedis: false,
      inLogs: false,
    });
  },
);

/** One hop in Hubtel's wire format: the latest input only, numbered by `Sequence`. */
async function latestHop(session: string, msisdn: string, sequence: number, message: string) {
  const { data } = await axios.post<{ Type: string; Message: string }>(`${gateway.url}/ussd/hubtel`, {
    Type: sequence === 1 ? 'Initiation' : 'Response',
    Mobile: msisdn,
    SessionId: session,
    ServiceCode: '714',
    Message: message,
    Operator: 'mtn',
    Sequence: sequence,
    ClientState: '',
  });
  return data.Message;
}

it('a latest-input dialogue lost at the PIN prompt: the PIN its next hop carries is kept nowhere', async () => {
  const pin = '2846';
  const agent = await agentWithPin(pin);
  const session = `latest-${agent}`;
  expect(await latestHop(session, agent, 1, '*714#')).toBe(PIN_PROMPT);
  await deleteKeysUnder(redis, `${prefix}:ussd:`);
  // Without its record the hop starts a new dialogue at the PIN prompt (what it carried not read).
  expect({ again: await latestHop(session, agent, 2, pin), ...(await pinFound(pin)) }).toEqual({
    again: PIN_PROMPT,
    inRedis: false,
    inLogs: false,
  });
  expect(await latestHop(session, agent, 3, pin)).toMatch(/^Agent menu:/);
  expect({ failedAttempts: await failedAttempts(agent), ...(await pinFound(pin)) }).toEqual({
    failedAttempts: 0,
    inRedis: false,
    inLogs: false,
  });
});

it("an agent's real shortcut still asks for the PIN first and reads its amount; a 4–6 digit one is asked again", async () => {
  const pin = '6048';
  const agent = await agentWithPin(pin);
  const short = `real-${agent}`;
  const dialled = `1*${METER}*100`;
  expect((await hop(gateway, short, agent, dialled)).screen).toBe(PIN_PROMPT);
  expect((await hop(gateway, short, agent, `${dialled}*${pin}`)).screen).toMatch(/^Customer's phone number/);
  // BWP 1500: within the limits, and as long as a PIN: not read, asked on the amount screen.
  const long = `real-long-${agent}`;
  const dialledLong = `1*${METER}*1500`;
  expect((await hop(gateway, long, agent, dialledLong)).screen).toBe(PIN_PROMPT);
  expect((await hop(gateway, long, agent, `${dialledLong}*${pin}`)).screen).toMatch(/^Enter the amount/);
  expect((await hop(gateway, long, agent, `${dialledLong}*${pin}*1500`)).screen).toMatch(
    /^Customer's phone number/,
  );
  expect(await failedAttempts(agent)).toBe(0);
  expect(await pinFound(pin)).toEqual({ inRedis: false, inLogs: false });
});

it("a subscriber's shortcut still reads a 4-digit amount: straight to the quote", async () => {
  const subscriber = newPhone();
  const reply = await hop(gateway, `sub-${subscriber}`, subscriber, `1*${METER}*1000`);
  expect(reply.screen).toMatch(/1 Buy/);
  expect(reply.screen).toMatch(/1,?000\.00/);
});

it('keeps no unsalted digest of any PIN under the prefix', async () => {
  expect(pins.size).toBeGreaterThan(0);
  expect(pinsReversedFrom(await stored())).toEqual([]);
}, 60_000);
