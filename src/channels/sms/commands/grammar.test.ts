import fc from 'fast-check';
import { loadLocales } from '../../../i18n';
import { parseSmsCommand, type ParseResult } from './grammar';
import { Keywords } from './keywords';

const keywords = new Keywords(loadLocales());
const parse = (text: string): ParseResult => parseSmsCommand(text, keywords);

/** text → the expected parse (command or problem) and the keyword's language. */
const CASES: [string, Partial<ParseResult>][] = [
  // Electricity, English and Setswana keywords, every separator.
  [
    'ELEC 01234567890 100',
    {
      ok: true,
      command: { kind: 'buy', product: 'ELECTRICITY', identifier: '01234567890', amountMinor: 10000 },
      language: 'en',
    },
  ],
  [
    'elec 01234567890 25.50',
    {
      ok: true,
      command: { kind: 'buy', product: 'ELECTRICITY', identifier: '01234567890', amountMinor: 2550 },
    },
  ],
  [
    'ELEC*01234567890*100',
    {
      ok: true,
      command: { kind: 'buy', product: 'ELECTRICITY', identifier: '01234567890', amountMinor: 10000 },
    },
  ],
  [
    'ELEC#01234567890#100#',
    {
      ok: true,
      command: { kind: 'buy', product: 'ELECTRICITY', identifier: '01234567890', amountMinor: 10000 },
    },
  ],
  [
    '  Electricity  0412 345 6789   P100. ',
    {
      ok: true,
      command: { kind: 'buy', product: 'ELECTRICITY', identifier: '04123456789', amountMinor: 10000 },
    },
  ],
  [
    'POWER 01234567890 BWP 100',
    {
      ok: true,
      command: { kind: 'buy', product: 'ELECTRICITY', identifier: '01234567890', amountMinor: 10000 },
    },
  ],
  [
    'Motlakase 01234567890 100',
    {
      ok: true,
      command: { kind: 'buy', product: 'ELECTRICITY', identifier: '01234567890', amountMinor: 10000 },
      language: 'tn',
    },
  ],
  [
    '.ELEC 0123456789012 1.5',
    {
      ok: true,
      command: { kind: 'buy', product: 'ELECTRICITY', identifier: '0123456789012', amountMinor: 150 },
    },
  ],
  ['ELEC 01234567890', { ok: false, problem: { code: 'usage', command: 'ELEC' } }],
  ['ELEC', { ok: false, problem: { code: 'usage', command: 'ELEC' } }],
  ['ELEC ABC123 100', { ok: false, problem: { code: 'identifier', command: 'ELEC' } }],
  ['ELEC 01234567890 ten', { ok: false, problem: { code: 'amount', command: 'ELEC', reason: 'notNumber' } }],
  ['ELEC 01234567890 0', { ok: false, problem: { code: 'amount', command: 'ELEC', reason: 'notPositive' } }],
  [
    'ELEC 01234567890 10.555',
    { ok: false, problem: { code: 'amount', command: 'ELEC', reason: 'tooManyDecimals' } },
  ],
  ['ELEC 01234567890 -5', { ok: false, problem: { code: 'amount', command: 'ELEC', reason: 'notNumber' } }],
  [
    'ELEC 01234567890 1,000',
    { ok: false, problem: { code: 'amount', command: 'ELEC', reason: 'notNumber' } },
  ],
  [
    'ELEC 01234567890 99999999999999999999',
    { ok: false, problem: { code: 'amount', command: 'ELEC', reason: 'notNumber' } },
  ],
  // Water.
  [
    'WATER 2000123456 50',
    {
      ok: true,
      command: { kind: 'buy', product: 'WATER', identifier: '2000123456', amountMinor: 5000 },
      language: 'en',
    },
  ],
  [
    'metsi 2000123456 50',
    {
      ok: true,
      command: { kind: 'buy', product: 'WATER', identifier: '2000123456', amountMinor: 5000 },
      language: 'tn',
    },
  ],
  ['WATER 50', { ok: false, problem: { code: 'usage', command: 'WATER' } }],
  // Airtime: own number, another number, a network, both.
  [
    'AIR 20',
    {
      ok: true,
      command: { kind: 'buy', product: 'AIRTIME', network: null, number: null, amountMinor: 2000 },
    },
  ],
  [
    'AIRTIME 71234567 20',
    {
      ok: true,
      command: { kind: 'buy', product: 'AIRTIME', network: null, number: '71234567', amountMinor: 2000 },
    },
  ],
  [
    'AIR MASCOM +26771234567 20',
    {
      ok: true,
      command: {
        kind: 'buy',
        product: 'AIRTIME',
        network: 'MASCOM',
        number: '+26771234567',
        amountMinor: 2000,
      },
    },
  ],
  [
    'air orange 20',
    {
      ok: true,
      command: { kind: 'buy', product: 'AIRTIME', network: 'orange', number: null, amountMinor: 2000 },
    },
  ],
  [
    'MOGALA BTC 71234567 10',
    {
      ok: true,
      command: { kind: 'buy', product: 'AIRTIME', network: 'BTC', number: '71234567', amountMinor: 1000 },
      language: 'tn',
    },
  ],
  ['AIR', { ok: false, problem: { code: 'usage', command: 'AIR' } }],
  ['AIR 71234567 71234568 20', { ok: false, problem: { code: 'usage', command: 'AIR' } }],
  ['AIR 12 20', { ok: false, problem: { code: 'phone', command: 'AIR' } }],
  ['AIR MASCOM twenty', { ok: false, problem: { code: 'amount', command: 'AIR', reason: 'notNumber' } }],
  // Confirmation and cancellation.
  ['YES 4821', { ok: true, command: { kind: 'yes', code: '4821', rest: [] } }],
  ['y 4821', { ok: true, command: { kind: 'yes', code: '4821', rest: [] } }],
  ['Ok', { ok: true, command: { kind: 'yes', code: null, rest: [] } }],
  ['EE 4821', { ok: true, command: { kind: 'yes', code: '4821', rest: [] }, language: 'tn' }],
  ['YES 4821 1234', { ok: true, command: { kind: 'yes', code: '4821', rest: ['1234'] } }],
  ['YES please', { ok: false, problem: { code: 'quoteCode', command: 'YES' } }],
  ['NO', { ok: true, command: { kind: 'no', code: null } }],
  ['nyaa 4821', { ok: true, command: { kind: 'no', code: '4821' }, language: 'tn' }],
  ['NO 4821 5555', { ok: false, problem: { code: 'usage', command: 'NO' } }],
  // Tokens, language, help.
  ['TOKEN', { ok: true, command: { kind: 'token', identifier: null } }],
  ['last 01234567890', { ok: true, command: { kind: 'token', identifier: '01234567890' } }],
  ['TOKENE', { ok: true, command: { kind: 'token', identifier: null }, language: 'tn' }],
  ['TOKEN abc', { ok: false, problem: { code: 'identifier', command: 'TOKEN' } }],
  ['LANG TN', { ok: true, command: { kind: 'lang', language: 'tn' } }],
  ['lang en', { ok: true, command: { kind: 'lang', language: 'en' } }],
  ['PUO Setswana', { ok: true, command: { kind: 'lang', language: 'tn' }, language: 'tn' }],
  ['LANG tn-BW', { ok: true, command: { kind: 'lang', language: 'tn' } }],
  ['LANG FR', { ok: false, problem: { code: 'language', command: 'LANG' } }],
  ['LANG', { ok: false, problem: { code: 'usage', command: 'LANG' } }],
  ['HELP', { ok: true, command: { kind: 'help' }, language: 'en' }],
  ['?', { ok: true, command: { kind: 'help' } }],
  ['thuso', { ok: true, command: { kind: 'help' }, language: 'tn' }],
  ['help!', { ok: true, command: { kind: 'help' } }],
  // Setswana, bad: the problem is named, and the keyword's language kept for the reply.
  ['MOTLAKASE 01234567890', { ok: false, problem: { code: 'usage', command: 'ELEC' }, language: 'tn' }],
  [
    'motlakase 0123456789X 50',
    { ok: false, problem: { code: 'identifier', command: 'ELEC' }, language: 'tn' },
  ],
  [
    'METSI 2000123456 lekgolo',
    { ok: false, problem: { code: 'amount', command: 'WATER', reason: 'notNumber' }, language: 'tn' },
  ],
  ['METSI', { ok: false, problem: { code: 'usage', command: 'WATER' }, language: 'tn' }],
  ['MOGALA', { ok: false, problem: { code: 'usage', command: 'AIR' }, language: 'tn' }],
  ['EE ke a dumela', { ok: false, problem: { code: 'quoteCode', command: 'YES' }, language: 'tn' }],
  ['NYAA 4821 1', { ok: false, problem: { code: 'usage', command: 'NO' }, language: 'tn' }],
  ['TOKENE mitara', { ok: false, problem: { code: 'identifier', command: 'TOKEN' }, language: 'tn' }],
  ['PUO', { ok: false, problem: { code: 'usage', command: 'LANG' }, language: 'tn' }],
  ['PUO Sefora', { ok: false, problem: { code: 'language', command: 'LANG' }, language: 'tn' }],
  // The remaining aliases and separators.
  ['n', { ok: true, command: { kind: 'no', code: null }, language: 'en' }],
  ['LANGUAGE Setswana', { ok: true, command: { kind: 'lang', language: 'tn' }, language: 'en' }],
  ['  YES   4821  ', { ok: true, command: { kind: 'yes', code: '4821', rest: [] } }],
  ['yes#4821#', { ok: true, command: { kind: 'yes', code: '4821', rest: [] } }],
  [
    '#motlakase*01234567890*P50#',
    {
      ok: true,
      command: { kind: 'buy', product: 'ELECTRICITY', identifier: '01234567890', amountMinor: 5000 },
      language: 'tn',
    },
  ],
  [
    'AIR*MASCOM*71234567*20',
    {
      ok: true,
      command: { kind: 'buy', product: 'AIRTIME', network: 'MASCOM', number: '71234567', amountMinor: 2000 },
    },
  ],
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
