import { loadLocales } from '../../src/i18n';
import { smsParts } from '../../src/i18n/gsm';
import { composeRefundSms } from '../../src/purchases/notify/compose';
import type { CareContact } from '../../src/purchases/care/settings';
import { intent, record } from './fixtures';

/**
 * The refund SMS (money back after a failed vend, or a payment that came too late) is a failure
 * SMS like the others (issue 31 §5): it ends with the care line, in the buyer's language, and
 * still fits the SMS budget (three GSM-7 parts) at the longest CARE_PHONE/CARE_HOURS.
 */

const locales = loadLocales();
const REASONS = ['vend_failed', 'late_payment'] as const;
const LANGS = [
  ['en-BW', 'en'],
  ['tn-BW', 'tn'],
] as const;

function refunded(language: string) {
  return record({
    state: 'failed',
    intent: intent({ language, paymentRequired: true, requesterMsisdn: '26772222222' }),
  });
}

const amount = { currency: 'BWP', minor: 10150 } as const;

describe.each(LANGS)('the refund SMS (%s)', (language, lang) => {
  it.each(REASONS)('%s: ends with the care line and hours', (reason) => {
    const care: CareContact = { phone: '3900000', hours: 'Mon-Fri 08:00-17:00' };
    const sms = composeRefundSms(refunded(language), { amount, reason }, locales, care);
    expect(sms.to).toBe('26772222222');
    const careLine = locales.t(lang, 'sms.careLineHours', { phone: care.phone, hours: care.hours! });
    expect(sms.message.endsWith(`\n${careLine}`)).toBe(true);
    // The refund itself is still said first.
    expect(sms.message).toContain('BWP 101.50');
  });

  it.each(REASONS)('%s: the care line without hours; none when CARE_PHONE is unset', (reason) => {
    const purchase = refunded(language);
    const withPhone = composeRefundSms(purchase, { amount, reason }, locales, {
      phone: '3900000',
      hours: null,
    });
    expect(withPhone.message.endsWith(`\n${locales.t(lang, 'sms.careLine', { phone: '3900000' })}`)).toBe(
      true,
    );
    const without = composeRefundSms(purchase, { amount, reason }, locales, null);
    expect(withPhone.message.startsWith(`${without.message}\n`)).toBe(true);
    expect(without.message).not.toContain('3900000');
  });

  it.each(REASONS)('%s: fits three GSM-7 parts with the longest care line', (reason) => {
    const care: CareContact = {
      phone: '+267 390 0000 123456',
      hours: 'Mon-Fri 08:00-17:00, Sat 09:00-13:00 ok',
    };
    const purchase = record({
      state: 'failed',
      externalReference: 'GW-01JH2K3M4N5P6Q7R8S9T0V',
      intent: intent({
        language,
        paymentRequired: true,
        productType: 'WATER',
        subscriberIdentifier: '0412345678901',
      }),
    });
    const sms = composeRefundSms(
      purchase,
      { amount: { currency: 'BWP', minor: 11000000 }, reason },
      locales,
      care,
    );
    const parts = smsParts(sms.message);
    expect(parts.encoding).toBe('GSM-7');
    expect(parts.parts).toBeLessThanOrEqual(3);
  });
});
