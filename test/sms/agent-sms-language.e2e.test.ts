import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { loadLocales, transliterate } from '../../src/i18n';
import { newPhone, startTestGateway, waitForSms } from '../e2e/harness';

/**
 * `PIN <old> <new>` and `BLOCK` change an agent's own account: the answer is in the language the
 * agent was registered with (`language: tn`), whichever language the keyword is in (`PIN` and
 * `BLOCK` are English; Setswana `PINE`) — PIN changed, a new PIN refused (its reason too), a
 * wrong current PIN, blocked.
 */

const ADMIN = 'agent-language-admin-token-0123';
const auth = { headers: { authorization: `Bearer ${ADMIN}` } };
const locales = loadLocales();
const tn = (key: string, params?: Record<string, string | number>) =>
  transliterate(locales.t('tn', key, params));
let gateway: Gateway;
let seq = 0;

beforeAll(async () => {
  gateway = await startTestGateway({ ADMIN_TOKEN: ADMIN, SMS_REPLIES_PER_MIN: '50', SMS_RATE_PER_MIN: '50' });
});
afterAll(() => gateway.close());

/** Sends `text` from `from` and returns the reply (the SMS after the `seen` first ones). */
async function ask(from: string, text: string, seen: number): Promise<string> {
  await axios.post(`${gateway.url}/sms/inbound`, {
    id: `lang-${from}-${++seq}`,
    from,
    to: '1',
    text,
    receivedAt: 'now',
  });
  return (await waitForSms(gateway, from, seen + 1))[0].message;
}

it('an agent registered in Setswana is answered in Setswana to PIN and BLOCK, whatever the keyword', async () => {
  const agent = newPhone();
  const added = await axios.post(
    `${gateway.url}/admin/agents`,
    { msisdn: agent, name: 'Mma Tn', float: true, language: 'tn' },
    auth,
  );
  const otp = added.data.oneTimePin as string;
  const replies = {
    refused: await ask(agent, `PIN ${otp} 1234`, 0),
    wrong: await ask(agent, 'PIN 8264 4826', 1),
    changed: await ask(agent, `PIN ${otp} 5937`, 2),
    blocked: await ask(agent, 'BLOCK', 3),
  };
  expect(replies).toEqual({
    refused: tn('sms.agent.pinRefused', { reason: locales.t('tn', 'agent.pin.problem.weak') }),
    wrong: tn('sms.agent.wrongPin', { left: 2 }),
    changed: tn('sms.agent.pinChanged'),
    blocked: tn('sms.agent.blocked'),
  });
});

it('an agent registered in English is answered in English, even to a Setswana keyword', async () => {
  const agent = newPhone();
  const added = await axios.post(
    `${gateway.url}/admin/agents`,
    { msisdn: agent, name: 'Mma En', float: true },
    auth,
  );
  expect(await ask(agent, `PINE ${added.data.oneTimePin as string} 5937`, 0)).toBe('Your PIN is changed.');
});
