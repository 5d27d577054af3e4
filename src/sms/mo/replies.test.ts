import { parseSmsCommand } from '../commands/grammar';
import { Keywords } from '../commands/keywords';
import { loadLocales, transliterate } from '../../i18n';
import { smsParts } from '../../i18n/gsm';
import { SmsConversation } from './conversation';
import { MemorySmsMoStore } from './store';

/**
 * HELP and every refusal of the grammar ("the reason, then the grammar") fit two GSM-7 parts in
 * every language: a subscriber never gets a help text cut into three SMS.
 */

const locales = loadLocales();
const keywords = new Keywords(locales);
// Help and refusal texts need no services: only the locales.
const conversation = new SmsConversation(new MemorySmsMoStore(), {} as never, locales, {
  quoteTtlS: 300,
  ratePerMin: 1,
  repliesPerMin: 1,
  defaultLanguage: 'en-BW',
  defaultRegion: 'BW',
  timeZone: 'Africa/Gaborone',
  yesWithoutCode: true,
});

const REFUSED = [
  'hello',
  'ELEC',
  'ELEC 0123456789X 100',
  'ELEC 01234567890 abc',
  'WATER 2000123456',
  'METERS please',
  'AIR',
  'AIR 12 20',
  'YES please',
  'NO 1234 5678',
  'TOKEN x',
  'LANG',
  'LANG FR',
];

describe.each(locales.languages().map((l) => [locales.meta(l).tag]))('SMS replies in %s', (lang) => {
  it('HELP fits two GSM-7 parts', () => {
    expect(smsParts(transliterate(conversation.help(lang)))).toMatchObject({ encoding: 'GSM-7' });
    expect(smsParts(transliterate(conversation.help(lang))).parts).toBeLessThanOrEqual(2);
  });

  test.each(REFUSED)('the refusal of %j names its reason and fits two GSM-7 parts', (text) => {
    const parsed = parseSmsCommand(text, keywords);
    if (parsed.ok) throw new Error(`${text} parses`);
    const reason = conversation.problemText(lang, parsed.problem);
    const reply = transliterate(
      locales.t(lang, 'sms.mo.helpWithReason', { reason, help: conversation.help(lang) }),
    );
    expect(reply.startsWith(transliterate(reason))).toBe(true);
    expect(smsParts(reply)).toMatchObject({ encoding: 'GSM-7', parts: expect.any(Number) });
    expect(smsParts(reply).parts).toBeLessThanOrEqual(2);
  });
});
