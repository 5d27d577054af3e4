import axios from 'axios';
import { ConfigError } from '../../src/config';
import type { Gateway } from '../../src/gateway/app';
import { startSandbox, TEST_METERS, type RunningSandbox } from '../../src/sandbox';
import { hop, ledger, newPhone, OUTBOX_ADMIN_TOKEN, startTestGateway, waitForSms } from '../e2e/harness';
import { sandboxServiceEnv } from '../support/sandbox-env';

/**
 * Issue #27 item 3, the attack replayed on a gateway configured as production with a real
 * purchase service (a sandbox over HTTP): open callbacks refuse the start; with a secret, a
 * spoofed BLOCK or ELEC without it is turned away and changes nothing; and from the real sender,
 * a bare YES buys nothing (the code-less form is off in production) and says to reply with the code.
 */

const SECRET = 'callback-secret-0123456789abcdef';
const key = { 'x-callback-key': SECRET };
const admin = { authorization: `Bearer ${OUTBOX_ADMIN_TOKEN}` };
let sandbox: RunningSandbox;
let seq = 0;

function productionEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'production',
    AGENT_PIN_SECRET: 'production-callbacks-test-pin-secret-0123',
    OPERATOR_PASSWORD_PEPPER: 'production-callbacks-operator-pepper-0123456',
    ...sandboxServiceEnv(sandbox.url),
    ALLOW_IN_MEMORY: 'true',
    ALLOW_OUTBOX_SMS: 'true',
    PAYMENT_PROVIDER: 'none',
    // The outbox (where the test reads the SMS) and the agents' admin, behind the admin token.
    DEV_ROUTES: 'true',
    ADMIN_TOKEN: OUTBOX_ADMIN_TOKEN,
    ...extra,
  };
}

async function sms(gateway: Gateway, from: string, text: string, headers: Record<string, string> = key) {
  const response = await axios.post(
    `${gateway.url}/sms/africastalking`,
    new URLSearchParams({
      id: `spoof-${process.pid}-${++seq}`,
      from: `+${from}`,
      to: '12345',
      text,
      date: 'now',
    }),
    { headers, validateStatus: () => true },
  );
  return response.status;
}

async function debits(gateway: Gateway, meter: string): Promise<number> {
  return (await ledger(gateway.purchaseServiceUrl)).filter(
    (r) => r.subscriber_identifier === meter && r.debited_minor > 0,
  ).length;
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
});
afterAll(async () => {
  await sandbox.close();
});

it('refuses to start with a callback open to anyone, naming what is open and the opt-out', async () => {
  const refused = startTestGateway(productionEnv());
  await expect(refused).rejects.toThrow(ConfigError);
  await expect(refused).rejects.toThrow(
    /^NODE_ENV=production needs a secret or an allow-list on every callback that can buy or change an agent: open are every USSD callback .* and the inbound SMS and delivery report routes .*ALLOW_OPEN_CALLBACKS=true/,
  );
  // The documented opt-out for a gateway behind a private link.
  const opted = await startTestGateway(productionEnv({ ALLOW_OPEN_CALLBACKS: 'true' }));
  await opted.close();
});

describe('production with USSD_CALLBACK_SECRET (the SMS routes default to it)', () => {
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startTestGateway(productionEnv({ USSD_CALLBACK_SECRET: SECRET }));
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('turns away a spoofed BLOCK, ELEC or USSD hop without the secret: nothing changes', async () => {
    const agent = newPhone();
    const victim = newPhone();
    await axios.post(
      `${gateway.url}/admin/agents`,
      { msisdn: agent, name: 'Kgosi Shop', float: true },
      { headers: admin },
    );
    expect(await sms(gateway, agent, 'BLOCK', {})).toBe(401);
    expect(await sms(gateway, agent, 'BLOCK', { 'x-callback-key': 'guessed-secret-0123456789' })).toBe(401);
    const status = async () =>
      (await axios.get(`${gateway.url}/admin/agents/${agent}`, { headers: admin })).data.agent.status;
    expect(await status()).toBe('active');

    expect(await sms(gateway, victim, `ELEC ${TEST_METERS.active} 100`, {})).toBe(401);
    expect((await hop(gateway, `spoof-${victim}`, victim, '')).status).toBe(401);
    expect(
      await (
        await axios.get(`${gateway.url}/dev/sms`, { params: { to: victim }, headers: admin })
      ).data,
    ).toMatchObject({ messages: [] });

    // The same BLOCK from the provider (with the secret) does stop the agent.
    expect(await sms(gateway, agent, 'BLOCK')).toBe(200);
    await waitForSms(gateway, agent, 1);
    expect(await status()).toBe('disabled');
  });

  it('a bare YES buys nothing and says to reply with the code; YES <code> buys once', async () => {
    const phone = newPhone();
    const meter = TEST_METERS.active;
    const before = await debits(gateway, meter);
    expect(await sms(gateway, phone, `ELEC ${meter} 100`)).toBe(200);
    const quote = (await waitForSms(gateway, phone, 1))[0].message;
    const code = /YES (\d{4})/.exec(quote)![1];

    expect(await sms(gateway, phone, 'YES')).toBe(200);
    expect((await waitForSms(gateway, phone, 2))[0].message).toBe(
      `Nothing bought yet: reply YES ${code} to buy (the code is in your quote).`,
    );
    expect(await debits(gateway, meter)).toBe(before);

    expect(await sms(gateway, phone, `YES ${code}`)).toBe(200);
    expect((await waitForSms(gateway, phone, 3))[0].message).toMatch(/Token: /);
    expect(await debits(gateway, meter)).toBe(before + 1);
  });
});
