import axios from 'axios';
import { Redis } from 'ioredis';
import type { Gateway } from '../../src/gateway/app';
import { loadLocales } from '../../src/i18n';
import { TEST_METERS } from '../../src/sandbox';
import { deleteKeysUnder, keysUnder, TEST_REDIS_URL, testPrefix } from '../support/redis';
import { hop, newPhone, OUTBOX_ADMIN_TOKEN, startTestGateway, waitForSms } from './harness';

/**
 * An agent's USSD dialogue whose record Redis lost (flushed, restarted empty) mid-sale: the
 * aggregator's next hops carry the inputs so far, the PIN first. None of them is read as a
 * one-dial shortcut that starts the dialogue again at the PIN prompt (the meter, the amount sent
 * next then counted as wrong PINs): each gets "could not finish", no wrong PIN is counted and the
 * PIN is stored nowhere. A real shortcut still asks for the PIN first.
 */

const prefix = testPrefix('agent-lost');
const auth = { headers: { authorization: `Bearer ${OUTBOX_ADMIN_TOKEN}` } };
const PIN = '5937';
const INTERRUPTED = loadLocales().t('en', 'error.hopInterrupted');
let gateway: Gateway;
let redis: Redis;
let seq = 0;

beforeAll(async () => {
  redis = new Redis(TEST_REDIS_URL);
  gateway = await startTestGateway({
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    ADMIN_TOKEN: OUTBOX_ADMIN_TOKEN,
    DEV_ROUTES: 'true',
  });
});

afterAll(async () => {
  await gateway.close();
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
});

async function agentWithPin(msisdn: string): Promise<void> {
  const added = await axios.post(
    `${gateway.url}/admin/agents`,
    { msisdn, name: 'Mma Dikeledi', float: true },
    auth,
  );
  await axios.post(
    `${gateway.url}/admin/agents/${msisdn}/credits`,
    { amount: 'BWP 300.00', reference: `lost-${msisdn}` },
    auth,
  );
  await axios.post(`${gateway.url}/sms/inbound`, {
    id: `lost-pin-${msisdn}-${++seq}`,
    from: msisdn,
    to: '1',
    text: `PIN ${added.data.oneTimePin as string} ${PIN}`,
    receivedAt: 'now',
  });
  expect((await waitForSms(gateway, msisdn, 1))[0].message).toBe('Your PIN is changed.');
}

async function failedAttempts(msisdn: string): Promise<number> {
  return (await axios.get(`${gateway.url}/admin/agents/${msisdn}`, auth)).data.agent.failedAttempts as number;
}

/** The session's keys in Redis: none while its hops are answered "could not finish" (nothing saved). */
function sessionKeys(session: string): Promise<string[]> {
  return keysUnder(redis, `${prefix}:ussd:{africastalking:${session}}`);
}

const CUSTOMER = '26772345678';

it.each([
  // Lost on the agent menu: the menu choice comes next (`<PIN>*1`).
  ['the agent menu', [PIN], ['1', TEST_METERS.active, '100', CUSTOMER, '1']],
  // Lost on the meter prompt: the meter comes next (`<PIN>*1*<meter>`).
  ['the meter prompt', [PIN, '1'], [TEST_METERS.active, '100', CUSTOMER, '1']],
  // Lost on the PIN prompt itself: the PIN comes next.
  ['the PIN prompt', [], [PIN, '1', TEST_METERS.active]],
])(
  'a sale whose record is lost on %s: "could not finish", no wrong PIN counted',
  async (_, before, after) => {
    const agent = newPhone();
    await agentWithPin(agent);
    const session = `lost-${agent}`;
    const typed: string[] = [];
    expect((await hop(gateway, session, agent, '')).screen).toBe('Agent: enter your PIN:');
    for (const input of before) {
      typed.push(input);
      expect((await hop(gateway, session, agent, typed.join('*'))).end).toBe(false);
    }
    await deleteKeysUnder(redis, `${prefix}:ussd:`);
    // The next hops, each the text so far, as the screens before the loss asked for them (sent
    // whatever the answer, as a caller that reads no screens: the fault suite's).
    const replies: Record<string, string> = {};
    for (const input of after) {
      typed.push(input);
      replies[typed.join('*').replace(PIN, '<PIN>')] = (
        await hop(gateway, session, agent, typed.join('*'))
      ).body;
    }
    expect({ failedAttempts: await failedAttempts(agent), replies }).toEqual({
      failedAttempts: 0,
      replies: Object.fromEntries(Object.keys(replies).map((text) => [text, `END ${INTERRUPTED}`])),
    });
    // Nothing saved for the session: the PIN in its text is stored nowhere.
    expect(await sessionKeys(session)).toEqual([]);
    // The agent dials again: the PIN first, and it is right.
    const again = `again-${agent}`;
    expect((await hop(gateway, again, agent, '')).screen).toBe('Agent: enter your PIN:');
    expect((await hop(gateway, again, agent, PIN)).screen).toMatch(/^Agent menu:/);
  },
);

it("an agent's one-dial shortcut still asks for the PIN first, then goes on to the amount", async () => {
  const agent = newPhone();
  await agentWithPin(agent);
  const session = `short-${agent}`;
  const dialled = `1*${TEST_METERS.active}`;
  expect((await hop(gateway, session, agent, dialled)).screen).toBe('Agent: enter your PIN:');
  expect((await hop(gateway, session, agent, `${dialled}*${PIN}`)).screen).toMatch(/^Enter the amount/);
  expect(await failedAttempts(agent)).toBe(0);
});
