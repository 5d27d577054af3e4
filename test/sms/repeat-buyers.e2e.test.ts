import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { loadLocales } from '../../src/i18n';
import { maskMsisdn } from '../../src/observability/logger';
import { TEST_METERS, TEST_WATER_ACCOUNTS } from '../../src/sandbox';
import { SqlSavedMeters } from '../../src/subscribers/saved-meters';
import type { ProductType } from '../../src/vas/port';
import { intent } from '../purchases/fixtures';
import { until } from '../support/wait';
import { dialogue, newPhone, outbox, startTestGateway, type OutboxMessage } from '../e2e/harness';

/**
 * Issue 31 by SMS against the sandbox, in English and Setswana: `ELEC 100` / `METSI 50` buy for
 * the number's last meter (none saved: how to name one), `METERS` lists the saved ones, a gift
 * `ELEC <meter> <amount> <phone>` is paid by the sender (the payment sandbox's push goes to the
 * sender) and its token goes to the other number, whose `TOKEN <meter>` finds it again; the payer
 * gets a receipt with the same reference and the masked beneficiary — by SMS and over USSD.
 */

let gateway: Gateway;
let seq = 0;

beforeAll(async () => {
  gateway = await startTestGateway(
    // USSD_ASK_TOKEN_RECIPIENT is left at its default (on): the USSD gift below is asked for.
    { SMS_REPLIES_PER_MIN: '50', SMS_RATE_PER_MIN: '50' },
    { paymentSandbox: { approveDelayMs: 50, refundDelayMs: 50, promptExpiryMs: 5000 } },
  );
});
afterAll(() => gateway.close());

async function sms(from: string, text: string): Promise<void> {
  const response = await axios.post(
    `${gateway.url}/sms/africastalking`,
    new URLSearchParams({
      id: `rb-${process.pid}-${++seq}`,
      from: `+${from}`,
      to: '12345',
      text,
      date: 'now',
    }),
  );
  expect(response.status).toBe(200);
}

/** The newest SMS to `to` matching `pattern`, once there. */
function smsMatching(to: string, pattern: RegExp): Promise<OutboxMessage> {
  return until(`an SMS to ${to} matching ${pattern}`, async () =>
    (await outbox(gateway, to)).find((m) => pattern.test(m.message)),
  );
}

const codeOf = (quote: string): string => /(?:YES|EE) (\d{4})/.exec(quote)![1];
const refOf = (text: string): string => /Ref: (\S+)/.exec(text)![1];

/** A delivered purchase for `phone`, its identifier saved by the settlement hook. */
async function boughtBefore(phone: string, productType: ProductType, identifier: string): Promise<void> {
  const bought = await gateway.desk.create(
    intent({
      productType,
      providerCode: productType === 'WATER' ? 'WUC' : 'BPC',
      subscriberIdentifier: identifier,
      requesterMsisdn: phone,
      beneficiaryMsisdn: phone,
      subscriberDetails: 'KABELO MOTSUMI',
    }),
    `rb-${phone}-${identifier}`,
  );
  await until('delivered', async () => (await gateway.desk.get(bought.id))?.state === 'succeeded');
  await until('saved', async () =>
    (await new SqlSavedMeters(gateway.records).list(phone, productType)).find(
      (m) => m.identifier === identifier,
    ),
  );
}

it('ELEC 100 without a saved meter says how to name one (en, tn); nothing is quoted', async () => {
  const phone = newPhone();
  await sms(phone, 'ELEC 100');
  const en = await smsMatching(phone, /saved/);
  expect(en.message).toMatch(
    /^You have no saved meter number yet: send ELEC <meter number> <amount>, e\.g\. ELEC 01234567890 100\.\n/,
  );
  expect(en.message).toMatch(/Buy by SMS:/);
  const other = newPhone();
  await sms(other, 'METSI 50');
  const tn = await smsMatching(other, /bolokilweng/);
  expect(tn.message).toMatch(/^Ga o na nomoro ya akhaonto ya metsi e e bolokilweng: romela METSI/);
  expect(tn.message).toMatch(/Go reka ka SMS:/);
});

it('a repeat buyer: ELEC 100 quotes the last meter with its name, YES buys it; METERS lists them', async () => {
  const phone = newPhone();
  await boughtBefore(phone, 'ELECTRICITY', TEST_METERS.active);
  await sms(phone, 'ELEC 100');
  const quote = await smsMatching(phone, /Reply YES/);
  expect(quote.message).toMatch(new RegExp(`^Electricity ${TEST_METERS.active} \\S`));
  await sms(phone, `YES ${codeOf(quote.message)}`);
  const token = await smsMatching(phone, /Token: \d{4}/);
  expect(token.message).toContain(TEST_METERS.active);

  await sms(phone, 'METERS');
  const meters = await smsMatching(phone, /saved meters/);
  expect(meters.message).toMatch(
    new RegExp(`^Your saved meters, newest first:\\nElectricity:\\n1 ${TEST_METERS.active} \\S`),
  );
});

it('Setswana: METSI 50 quotes the last water account; DIMITARA lists per product', async () => {
  const phone = newPhone();
  const water = TEST_WATER_ACCOUNTS.active;
  await boughtBefore(phone, 'ELECTRICITY', TEST_METERS.active);
  await boughtBefore(phone, 'WATER', water);
  await sms(phone, 'METSI 50');
  const quote = await smsMatching(phone, /Araba EE/);
  expect(quote.message).toMatch(new RegExp(`^Metsi ${water}`));
  await sms(phone, 'DIMITARA');
  const meters = await smsMatching(phone, /Dimitara tsa gago/);
  expect(meters.message).toContain(`Motlakase:\n1 ${TEST_METERS.active} KABELO MOTSUMI`);
  expect(meters.message).toContain(`Metsi:\n1 ${water}`);
  expect(meters.message).toMatch(/MOTLAKASE <madi> e rekela ya ntlha\.$/);
});

it('METERS with nothing saved says how meters are saved', async () => {
  const phone = newPhone();
  await sms(phone, 'METERS');
  expect((await smsMatching(phone, /no saved meters/)).message).toMatch(/e\.g\. ELEC 01234567890 100/);
});

it('a gift by SMS: the sender pays, the token goes to the other number, the payer gets a receipt; TOKEN finds it', async () => {
  const payer = newPhone();
  const friend = newPhone();
  const meter = TEST_METERS.active;
  // The local form of the number (8 digits): normalised with the region.
  await sms(payer, `ELEC ${meter} 100 ${friend.slice(3)}`);
  const quote = await smsMatching(payer, /Reply YES/);
  expect(quote.message).toContain(`Electricity ${meter} `);
  expect(quote.message).toContain(`Token to ${maskMsisdn(friend)}; you pay.`);
  await sms(payer, `YES ${codeOf(quote.message)}`);

  const token = await smsMatching(friend, /Token: \d{4}/);
  const receipt = await smsMatching(payer, /the token was sent to that number/);
  expect(receipt.message).toContain(`Electricity ${meter} for ${maskMsisdn(friend)}`);
  expect(receipt.message).not.toMatch(/Token: /);
  expect(refOf(receipt.message)).toBe(refOf(token.message));
  // The payer was asked to pay (the payment sandbox's push went to the sender).
  const { data } = await axios.get<{ payments: { msisdn: string; status: string }[] }>(
    `${gateway.paymentSandbox!.url}/sandbox/payments`,
  );
  expect(data.payments.filter((p) => p.msisdn === payer)).toHaveLength(1);
  expect(data.payments.filter((p) => p.msisdn === friend)).toHaveLength(0);

  // The beneficiary asks again for the token bought for it, in Setswana.
  await sms(friend, `TOKENE ${meter}`);
  const again = await until('the token again', async () =>
    (await outbox(gateway, friend)).find((m) => m !== token && m.message.includes('Palogotlhe')),
  );
  expect(again.message).toContain(/Token: (\d{4}(?: \d{4})+)/.exec(token.message)![1]);
});

it('a gift by SMS in Setswana: MOTLAKASE <mitara> <madi> <nomoro>, EE; the token to the other number, the receipt in Setswana', async () => {
  const locales = loadLocales();
  const t = (key: string, params: Record<string, string> = {}) => locales.t('tn', key, params);
  const payer = newPhone();
  const friend = newPhone();
  const meter = TEST_METERS.tariffCharge;
  await sms(payer, `MOTLAKASE ${meter} 100 ${friend}`);
  const quote = await smsMatching(payer, /Araba EE \d{4}/);
  expect(quote.message).toContain(`${t('product.ELECTRICITY')} ${meter}`);
  expect(quote.message).toContain(
    t('sms.mo.quoteGift', { quote: '@', msisdn: maskMsisdn(friend) }).split('@')[1],
  );
  await sms(payer, `EE ${codeOf(quote.message)}`);

  const token = await smsMatching(friend, /Tokene: \d{4}/);
  const [receiptLead] = t('sms.giftReceipt', {
    product: t('product.ELECTRICITY'),
    identifier: meter,
    beneficiary: maskMsisdn(friend),
    total: '@',
    reference: '@',
  }).split('@');
  const receipt = await smsMatching(payer, /tokene e rometswe kwa nomorong eo/);
  expect(receipt.message.startsWith(receiptLead)).toBe(true);
  expect(receipt.message).not.toMatch(/Tokene: \d{4}/);
  expect(refOf(receipt.message)).toBe(refOf(token.message));
});

it('a gift over USSD: the token to the other number, the payer gets the receipt with the same reference', async () => {
  const payer = newPhone();
  const friend = newPhone();
  const replies = await dialogue(gateway, `gift-${payer}`, payer, [
    '1',
    TEST_METERS.active,
    '2',
    friend,
    '100',
    '1',
  ]);
  expect(replies[5].screen).toContain(`Token to ${maskMsisdn(friend)}`);
  const token = await smsMatching(friend, /Token: \d{4}/);
  const receipt = await smsMatching(payer, /the token was sent to that number/);
  expect(receipt.message).toContain(`for ${maskMsisdn(friend)}`);
  expect(refOf(receipt.message)).toBe(refOf(token.message));
  expect((await outbox(gateway, payer)).some((m) => /Token: \d{4}/.test(m.message))).toBe(false);
});
