import fc from 'fast-check';
import { loadLocales } from '../../i18n';
import { parseSmsCommand, type ParseProblem, type ParseResult } from './grammar';
import { Keywords, type CommandName } from './keywords';

const keywords = new Keywords(loadLocales());
const parse = (text: string): ParseResult => parseSmsCommand(text, keywords);

type Expected = Partial<ParseResult>;
type InLanguage = { language?: string | null };

/** `expected` with the keyword's language, where a row names it. */
function withLanguage(expected: Expected, language?: string | null): Expected {
  return language === undefined ? expected : { ...expected, language };
}

/** A meter product bought: its meter (null: the last one), the amount, a gift's number. */
const meterBuy =
  (product: 'ELECTRICITY' | 'WATER') =>
  (
    identifier: string | null,
    amountMinor: number,
    more: { beneficiary?: string } & InLanguage = {},
  ): Expected => {
    const { language, ...gift } = more;
    return withLanguage(
      { ok: true, command: { kind: 'buy', product, identifier, amountMinor, ...gift } },
      language,
    );
  };
const elec = meterBuy('ELECTRICITY');
const water = meterBuy('WATER');

/** Airtime bought: the network and number as typed (null: not given), the amount. */
function air(
  network: string | null,
  number: string | null,
  amountMinor: number,
  more: InLanguage = {},
): Expected {
  const command = { kind: 'buy', product: 'AIRTIME', network, number, amountMinor } as const;
  return withLanguage({ ok: true, command }, more.language);
}

/** A command refused: the problem's code, the command named, and for an amount the reason. */
function refused(
  code: ParseProblem['code'],
  command: CommandName,
  more: { reason?: string } & InLanguage = {},
): Expected {
  const { language, ...reason } = more;
  return withLanguage({ ok: false, problem: { code, command, ...reason } as ParseProblem }, language);
}

/** text → the expected parse (command or problem) and the keyword's language. */
const CASES: [string, Partial<ParseResult>][] = [
  // Electricity, English and Setswana keywords, every separator.
  ['ELEC 01234567890 100', elec('01234567890', 10000, { language: 'en' })],
  ['elec 01234567890 25.50', elec('01234567890', 2550)],
  ['ELEC*01234567890*100', elec('01234567890', 10000)],
  ['ELEC#01234567890#100#', elec('01234567890', 10000)],
  ['  Electricity  0412 345 6789   P100. ', elec('04123456789', 10000)],
  ['POWER 01234567890 BWP 100', elec('01234567890', 10000)],
  ['Motlakase 01234567890 100', elec('01234567890', 10000, { language: 'tn' })],
  ['.ELEC 0123456789012 1.5', elec('0123456789012', 150)],
  ['ELEC 01234567890', refused('usage', 'ELEC')],
  ['ELEC', refused('usage', 'ELEC')],
  ['ELEC ABC123 100', refused('identifier', 'ELEC')],
  ['ELEC 01234567890 ten', refused('amount', 'ELEC', { reason: 'notNumber' })],
  ['ELEC 01234567890 0', refused('amount', 'ELEC', { reason: 'notPositive' })],
  ['ELEC 01234567890 10.555', refused('amount', 'ELEC', { reason: 'tooManyDecimals' })],
  ['ELEC 01234567890 -5', refused('amount', 'ELEC', { reason: 'notNumber' })],
  ['ELEC 01234567890 1,000', refused('amount', 'ELEC', { reason: 'notNumber' })],
  ['ELEC 01234567890 99999999999999999999', refused('amount', 'ELEC', { reason: 'notNumber' })],
  // Water.
  ['WATER 2000123456 50', water('2000123456', 5000, { language: 'en' })],
  ['metsi 2000123456 50', water('2000123456', 5000, { language: 'tn' })],
  // Issue 31: no meter buys for the last one; a phone after the amount is a gift; METERS.
  ['WATER 50', water(null, 5000)],
  ['ELEC P100', elec(null, 10000)],
  ['motlakase BWP 25.50', elec(null, 2550, { language: 'tn' })],
  ['WATER 2000123456', refused('usage', 'WATER')],
  ['ELEC ten', refused('amount', 'ELEC', { reason: 'notNumber' })],
  ['ELEC 01234567890 100 71234567', elec('01234567890', 10000, { beneficiary: '71234567' })],
  [
    'METSI 2000123456 P50 +26771234567',
    water('2000123456', 5000, { beneficiary: '+26771234567', language: 'tn' }),
  ],
  // Grouped meter digits still read as the meter: the last word (the amount) is short.
  ['ELEC 0412 345 6789 100', elec('04123456789', 10000)],
  ['ELEC 01234567890 ten 71234567', refused('amount', 'ELEC', { reason: 'notNumber' })],
  ['METERS', { ok: true, command: { kind: 'meters' }, language: 'en' }],
  ['dimitara', { ok: true, command: { kind: 'meters' }, language: 'tn' }],
  ['METERS 5', refused('usage', 'METERS')],
  // Airtime: own number, another number, a network, both.
  ['AIR 20', air(null, null, 2000)],
  ['AIRTIME 71234567 20', air(null, '71234567', 2000)],
  ['AIR MASCOM +26771234567 20', air('MASCOM', '+26771234567', 2000)],
  ['air orange 20', air('orange', null, 2000)],
  ['MOGALA BTC 71234567 10', air('BTC', '71234567', 1000, { language: 'tn' })],
  ['AIR', refused('usage', 'AIR')],
  ['AIR 71234567 71234568 20', refused('usage', 'AIR')],
  ['AIR 12 20', refused('phone', 'AIR')],
  ['AIR MASCOM twenty', refused('amount', 'AIR', { reason: 'notNumber' })],
  // Confirmation and cancellation.
  ['YES 4821', { ok: true, command: { kind: 'yes', code: '4821', rest: [] } }],
  ['y 4821', { ok: true, command: { kind: 'yes', code: '4821', rest: [] } }],
  ['Ok', { ok: true, command: { kind: 'yes', code: null, rest: [] } }],
  ['EE 4821', { ok: true, command: { kind: 'yes', code: '4821', rest: [] }, language: 'tn' }],
  ['YES 4821 1234', { ok: true, command: { kind: 'yes', code: '4821', rest: ['1234'] } }],
  ['YES please', refused('quoteCode', 'YES')],
  ['NO', { ok: true, command: { kind: 'no', code: null } }],
  ['nyaa 4821', { ok: true, command: { kind: 'no', code: '4821' }, language: 'tn' }],
  ['NO 4821 5555', refused('usage', 'NO')],
  // A number the intake masked where the code goes (an agent's PIN): a code that matches nothing.
  ['YES XXXX XXXX', { ok: true, command: { kind: 'yes', code: 'XXXX', rest: ['XXXX'] } }],
  ['NO XXXX', { ok: true, command: { kind: 'no', code: 'XXXX' } }],
  // Tokens, language, help.
  ['TOKEN', { ok: true, command: { kind: 'token', identifier: null } }],
  ['last 01234567890', { ok: true, command: { kind: 'token', identifier: '01234567890' } }],
  ['TOKENE', { ok: true, command: { kind: 'token', identifier: null }, language: 'tn' }],
  ['TOKEN abc', refused('identifier', 'TOKEN')],
  ['LANG TN', { ok: true, command: { kind: 'lang', language: 'tn' } }],
  ['lang en', { ok: true, command: { kind: 'lang', language: 'en' } }],
  ['PUO Setswana', { ok: true, command: { kind: 'lang', language: 'tn' }, language: 'tn' }],
  ['LANG tn-BW', { ok: true, command: { kind: 'lang', language: 'tn' } }],
  ['LANG FR', refused('language', 'LANG')],
  ['LANG', refused('usage', 'LANG')],
  ['HELP', { ok: true, command: { kind: 'help' }, language: 'en' }],
  ['?', { ok: true, command: { kind: 'help' } }],
  ['thuso', { ok: true, command: { kind: 'help' }, language: 'tn' }],
  ['help!', { ok: true, command: { kind: 'help' } }],
  // Setswana, bad: the problem is named, and the keyword's language kept for the reply.
  ['MOTLAKASE 01234567890', refused('usage', 'ELEC', { language: 'tn' })],
  ['motlakase 0123456789X 50', refused('identifier', 'ELEC', { language: 'tn' })],
  ['METSI 2000123456 lekgolo', refused('amount', 'WATER', { reason: 'notNumber', language: 'tn' })],
  ['METSI', refused('usage', 'WATER', { language: 'tn' })],
  ['MOGALA', refused('usage', 'AIR', { language: 'tn' })],
  ['EE ke a dumela', refused('quoteCode', 'YES', { language: 'tn' })],
  ['NYAA 4821 1', refused('usage', 'NO', { language: 'tn' })],
  ['TOKENE mitara', refused('identifier', 'TOKEN', { language: 'tn' })],
  ['PUO', refused('usage', 'LANG', { language: 'tn' })],
  ['PUO Sefora', refused('language', 'LANG', { language: 'tn' })],
  // The remaining aliases and separators.
  ['n', { ok: true, command: { kind: 'no', code: null }, language: 'en' }],
  ['LANGUAGE Setswana', { ok: true, command: { kind: 'lang', language: 'tn' }, language: 'en' }],
  ['  YES   4821  ', { ok: true, command: { kind: 'yes', code: '4821', rest: [] } }],
  ['yes#4821#', { ok: true, command: { kind: 'yes', code: '4821', rest: [] } }],
  ['#motlakase*01234567890*P50#', elec('01234567890', 5000, { language: 'tn' })],
  ['AIR*MASCOM*71234567*20', air('MASCOM', '71234567', 2000)],
  // Not commands.
  ['', { ok: false, problem: { code: 'unknownCommand' }, language: null }],
  ['   ', { ok: false, problem: { code: 'unknownCommand' } }],
  ['hello there', { ok: false, problem: { code: 'unknownCommand' } }],
  ['BUY ELEC 01234567890 100', { ok: false, problem: { code: 'unknownCommand' } }],
  ['4821', { ok: false, problem: { code: 'unknownCommand' } }],
];

describe('SMS command grammar', () => {
  test.each(CASES)('%j', (text, expected) => {
    expect(parse(text)).toMatchObject(expected);
  });

  it('builds every keyword from the locale files, and refuses a keyword meaning two commands', () => {
    expect(keywords.meaning('MOTLAKASE')).toEqual({ command: 'ELEC', language: 'tn' });
    expect(keywords.meaning('ELEC')).toEqual({ command: 'ELEC', language: 'en' });
    expect(keywords.meaning('BUY')).toBeUndefined();
  });

  it('never throws and always answers, for any text', () => {
    const runs = Number(process.env.FUZZ_RUNS ?? 2000);
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.stringMatching(/^[A-Za-z0-9*#+., ]{0,40}$/)),
        (text) => {
          const result = parse(text);
          expect(typeof result.ok).toBe('boolean');
        },
      ),
      { numRuns: runs },
    );
    process.stdout.write(`SMS grammar property: ${runs} texts parsed, 0 throws\n`);
  });
});
