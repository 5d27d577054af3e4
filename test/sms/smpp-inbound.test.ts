import type { AddressInfo } from 'node:net';
import * as smpp from 'smpp';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { ledger, newPhone, startTestGateway } from '../e2e/harness';
import { until } from '../support/wait';

/**
 * An SMPP link bound as transceiver carries both ways: a subscriber's deliver_sm is the same
 * inbound path as the HTTP routes (quote, YES, token), and the SMSC's delivery receipts — one per
 * part of a long SMS, each naming that part's id — are recorded on the SMS they are about. The
 * SMSC is a real SMPP peer built with `smpp`.
 */

interface Submit {
  to: string;
  text: string;
  messageId: string;
  /** The concatenation UDH's reference, for a part of a long SMS. */
  reference?: number;
}

let server: smpp.Server;
let session: smpp.Session | undefined;
const submits: Submit[] = [];
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
      const udh = pdu.short_message?.udh?.[0];
      submits.push({
        to: String(pdu.destination_addr),
        text: typeof raw === 'string' ? raw : String(raw),
        messageId,
        ...(udh && { reference: udh[2] }),
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

/** The SMSC's receipt on one submitted part. */
function receipt(from: string, messageId: string, stat: 'DELIVRD' | 'UNDELIV'): void {
  session!.deliver_sm({
    source_addr: from,
    esm_class: 0x04,
    short_message: `id:${messageId} sub:001 dlvr:001 submit date:2611230304 done date:2611230305 stat:${stat} err:${stat === 'DELIVRD' ? '000' : '001'} text:`,
    receipted_message_id: messageId,
  });
}

/** A purchase by SMS over the link; the parts of its token SMS as the SMSC took them. */
async function buy(phone: string): Promise<{ purchaseId: string; parts: Submit[] }> {
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
  // A token SMS is long: the test is about its parts.
  expect(token.reference).toBeDefined();
  const parts = submits.filter((m) => m.to === phone && m.reference === token.reference);
  expect(parts.length).toBeGreaterThan(1);
  const [purchase] = await gateway.desk.listByMsisdn(phone);
  return { purchaseId: purchase.id, parts };
}

interface SmsView {
  status: string;
  providerMessageId: string | null;
  deliveryFailures?: number;
  delivery?: { state: string; providerStatus: string; parts?: { delivered: number; total: number } };
}

/** The purchase's token SMS as the admin view shows it, once `ready` says so. */
function tokenSms(purchaseId: string, what: string, ready: (sms: SmsView) => boolean): Promise<SmsView> {
  return until(what, async () => {
    const response = await fetch(`${gateway.url}/admin/purchases/${purchaseId}`, {
      headers: { authorization: 'Bearer smpp-admin-token-0123456789' },
    });
    const body = (await response.json()) as { sms: SmsView[] };
    return body.sms.find(ready) ?? null;
  });
}

it('buys by SMS over the SMPP link, and records the receipts of the token SMS: delivered once each part is', async () => {
  const phone = newPhone();
  const { purchaseId, parts } = await buy(phone);
  const total = parts.length;
  const ids = parts.map((p) => p.messageId).join(',');

  receipt(phone, parts[0].messageId, 'DELIVRD');
  const first = await tokenSms(purchaseId, 'the first part recorded', (n) => n.delivery !== undefined);
  expect(first).toMatchObject({
    status: 'sent',
    providerMessageId: ids,
    delivery: { state: 'pending', providerStatus: 'DELIVRD', parts: { delivered: 1, total } },
  });

  for (const part of parts.slice(1)) receipt(phone, part.messageId, 'DELIVRD');
  const sms = await tokenSms(purchaseId, 'every part recorded', (n) => n.delivery?.state === 'delivered');
  expect(sms).toMatchObject({
    status: 'sent',
    delivery: { state: 'delivered', providerStatus: 'DELIVRD', parts: { delivered: total, total } },
  });
  expect(sms.deliveryFailures).toBeUndefined();
});

it('sends a token SMS again, once, when the SMSC reports one of its parts undelivered', async () => {
  const phone = newPhone();
  const { purchaseId, parts } = await buy(phone);
  const last = parts[parts.length - 1];
  receipt(phone, last.messageId, 'UNDELIV');
  receipt(phone, last.messageId, 'UNDELIV');
  // The whole SMS again, under the new parts' ids; the duplicate receipt re-opened nothing more.
  const first = parts.map((p) => p.messageId).join(',');
  const again = await tokenSms(
    purchaseId,
    'the token SMS sent again',
    (n) => n.status === 'sent' && n.providerMessageId !== first,
  );
  expect(again).toMatchObject({
    deliveryFailures: 1,
    delivery: { state: 'failed', providerStatus: 'UNDELIV' },
  });
  const copies = submits.filter((m) => m.to === phone && /Token/.test(m.text));
  expect(copies).toHaveLength(2);
  const resent = submits
    .slice(submits.indexOf(copies[1]))
    .filter((m) => m.to === phone && m.reference === copies[1].reference);
  expect(again.providerMessageId).toBe(resent.map((m) => m.messageId).join(','));
});
