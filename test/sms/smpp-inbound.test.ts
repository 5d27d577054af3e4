import type { AddressInfo } from 'node:net';
import * as smpp from 'smpp';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { ledger, newPhone, startTestGateway } from '../e2e/harness';
import { until } from '../support/wait';

/**
 * An SMPP link bound as transceiver carries both ways: a subscriber's deliver_sm is the same
 * inbound path as the HTTP routes (quote, YES, token), and the SMSC's delivery receipt is
 * recorded on the SMS it is about. The SMSC is a real SMPP peer built with `smpp`.
 */

let server: smpp.Server;
let session: smpp.Session | undefined;
const submits: { to: string; text: string; messageId: string }[] = [];
let gateway: Gateway;

beforeAll(async () => {
  server = smpp.createServer((s) => {
    s.on('error', () => undefined);
    s.on('bind_transceiver', (pdu) => {
      session = s;
      s.send(pdu.response({ system_id: 'TESTSMSC' }));
    });
    s.on('submit_sm', (pdu) => {
      const messageId = `SMSC${submits.length + 1}`;
      const raw = pdu.short_message?.message;
      submits.push({
        to: String(pdu.destination_addr),
        text: typeof raw === 'string' ? raw : String(raw),
        messageId,
      });
      s.send(pdu.response({ message_id: messageId }));
    });
    s.on('enquire_link', (pdu) => s.send(pdu.response()));
    s.on('deliver_sm_resp', () => undefined);
    s.on('unbind', (pdu) => {
      s.send(pdu.response());
      s.close();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  gateway = await startTestGateway({
    SMS_DRIVER: 'smpp',
    SMPP_HOST: '127.0.0.1',
    SMPP_PORT: String((server.address() as AddressInfo).port),
    SMPP_SYSTEM_ID: 'gateway',
    SMPP_PASSWORD: 'secret1',
    ADMIN_TOKEN: 'smpp-admin-token-0123456789',
  });
  await until('the gateway bound', () => session ?? null);
});

afterAll(async () => {
  await gateway.close();
  await new Promise((resolve) => server.close(resolve));
});

function moFrom(from: string, text: string): void {
  session!.deliver_sm({ source_addr: from, destination_addr: '12345', esm_class: 0, short_message: text });
}

it('buys by SMS over the SMPP link, and records the receipt of the token SMS', async () => {
  const phone = newPhone();
  moFrom(phone, `ELEC ${TEST_METERS.active} 70`);
  const quote = await until('the quote', () => submits.find((m) => m.to === phone) ?? null);
  expect(quote.text).toMatch(/Reply YES \d{4} to buy/);
  moFrom(phone, `YES ${/YES (\d{4})/.exec(quote.text)![1]}`);
  const token = await until(
    'the token SMS',
    () => submits.find((m) => m.to === phone && /Token/.test(m.text)) ?? null,
  );
  const debits = (await ledger(gateway.purchaseServiceUrl)).filter(
    (r) => r.token !== null && token.text.includes(r.token),
  );
  expect(debits).toHaveLength(1);

  session!.deliver_sm({
    source_addr: phone,
    esm_class: 0x04,
    short_message: `id:${token.messageId} sub:001 dlvr:001 submit date:2611230304 done date:2611230305 stat:DELIVRD err:000 text:`,
    receipted_message_id: token.messageId,
  });
  const [purchase] = await gateway.desk.listByMsisdn(phone);
  const sms = await until('the receipt recorded', async () => {
    const response = await fetch(`${gateway.url}/admin/purchases/${purchase.id}`, {
      headers: { authorization: 'Bearer smpp-admin-token-0123456789' },
    });
    const body = (await response.json()) as { sms: { delivery?: { state: string } }[] };
    return body.sms.find((n) => n.delivery?.state === 'delivered') ?? null;
  });
  expect(sms).toMatchObject({ status: 'sent', delivery: { state: 'delivered', providerStatus: 'DELIVRD' } });
});
