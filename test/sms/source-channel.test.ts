import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { newPhone, startTestGateway, waitForSms } from '../e2e/harness';
import { until } from '../support/wait';

/**
 * What the purchase service is told an SMS purchase came from: v1 has no SMS value, so it gets
 * `SMS_SOURCE_CHANNEL` (default `USSD`); the legacy interface gets `SMS_MO`. The sandbox refuses
 * anything outside each interface's documented set, so the purchase going through proves the
 * value is valid there, and its ledger row shows which one was sent.
 */

async function smsPurchaseChannel(env: Record<string, string>): Promise<string> {
  const gateway: Gateway = await startTestGateway(env);
  try {
    const phone = newPhone();
    const send = (text: string, id: string) =>
      axios.post(`${gateway.url}/sms/inbound`, { id, from: phone, to: '1', text, receivedAt: 'now' });
    await send(`ELEC ${TEST_METERS.active} 40`, `sc-${phone}-1`);
    const [quote] = await waitForSms(gateway, phone, 1);
    await send(`YES ${/YES (\d{4})/.exec(quote.message)![1]}`, `sc-${phone}-2`);
    // The approve reply, then (paid: an unlisted number approves) the token.
    expect((await waitForSms(gateway, phone, 3))[0].message).toMatch(/Token: /);
    const row = await until('the purchase in the ledger', async () => {
      const rows = (await axios.get(`${gateway.purchaseServiceUrl}/sandbox/transactions`)).data as {
        status: string;
        source_channel: string;
      }[];
      return rows.find((r) => r.status === 'SUCCESSFUL') ?? null;
    });
    return row.source_channel;
  } finally {
    await gateway.close();
  }
}

it('v1: SMS purchases are sent as SMS_SOURCE_CHANNEL, USSD by default', async () => {
  expect(await smsPurchaseChannel({})).toBe('USSD');
  expect(await smsPurchaseChannel({ SMS_SOURCE_CHANNEL: 'WEB' })).toBe('WEB');
});

it('legacy: SMS purchases are sent as SMS_MO', async () => {
  expect(await smsPurchaseChannel({ PURCHASE_API_INTERFACE: 'legacy' })).toBe('SMS_MO');
});
