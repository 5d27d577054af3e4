import fc from 'fast-check';
import { normaliseMsisdn } from '../../src/phone';
import { TEST_METERS, TEST_WATER_ACCOUNTS } from '../../src/sandbox';

/**
 * Arbitraries for the HTTP fuzz suite: the odd values a misbehaving aggregator, a scanner or a
 * broken SMSC sends (unicode, separators, Redis hash-tag characters, huge fields, garbage
 * numbers, overflowing amounts) and the ways a request can be malformed on the wire.
 */

/** Characters that have broken gateways before: hash tags, separators, controls, bidi, surrogates. */
const ODD = [
  '{',
  '}',
  ':',
  '*',
  '#',
  '\n',
  '\r\n',
  '\t',
  ' ',
  '\u0000',
  '%',
  '&',
  '=',
  '+',
  '?',
  '/',
  '\\',
  '"',
  "'",
  '<',
  '>',
  '[',
  ']',
  'é',
  'ñ',
  '€',
  '😀',
  '\u202e',
  '\ufeff',
  '\ud800',
  '1',
  'a',
  '0',
];

export const oddText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.array(fc.constantFrom(...ODD), { maxLength: 16 }).map((a) => a.join('')),
);

/** Past every field limit the adapters and body parsers have (1000, 1600, 16 kB). */
export const hugeText = fc
  .tuple(fc.constantFrom(1001, 1601, 5000, 17_000), fc.constantFrom('9', 'a', '*', 'é', '{'))
  .map(([n, c]) => c.repeat(n));

let unique = 0;
/** Session ids: well-formed and distinct, or with `{}`, `:`, `*`, newlines, unicode, huge. */
export const sessionId = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.:-]{1,20}$/).map((s) => `${s}-${(unique += 1)}`) },
  { weight: 2, arbitrary: oddText },
  fc.constantFrom('{x}', 'a:b', '*', 'id\nid', 'id}', '{', '', ' '),
  { weight: 1, arbitrary: hugeText },
);

/** Callers: other countries' well-formed numbers, and garbage (never a Botswana mobile: see mayBuy). */
export const phone = fc.oneof(
  fc.constantFrom('233241234567', '+254712345678', '447700900123', '+2348031234567', '27821234567'),
  fc.stringMatching(/^\+?[0-9]{0,40}$/),
  fc.constantFrom('', '+', '-1', '0', '2.5e11', ' 233 24 123 4567 ', '٢٣٣٢٤١٢٣٤٥٦٧', '+0000000', 'null'),
  oddText,
);

/** What a subscriber types at a prompt: menu digits, amounts that overflow, near-identifiers, garbage. */
export const typed = fc.oneof(
  fc.constantFrom('1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '00', '#', '*', '99', ''),
  fc.constantFrom(
    '10',
    '100',
    '0',
    '-5',
    '1e3',
    '10.555',
    '25.50',
    '99999999999999999999',
    '9007199254740993',
    '0x10',
    '１００',
    'NaN',
    'Infinity',
    '1,000',
    ' 1',
    '1 ',
  ),
  fc.stringMatching(/^[0-9]{9,14}$/),
  oddText,
  hugeText,
);

/** An inbound SMS text: grammar-shaped commands joined by odd separators, or garbage. */
const word = fc.constantFrom(
  'ELEC',
  'elec',
  'POWER',
  'WATER',
  'AIR',
  'BUY',
  'YES',
  'Y',
  'NO',
  'TOKEN',
  'LANG',
  'HELP',
  'PIN',
  'P100',
  '100',
  '0',
  '-5',
  '1e3',
  '99999999999999999999',
  '10.555',
  '12345678901',
);
const separator = fc.constantFrom(' ', '*', '#', '  ', '\n', '.', ',', ':', '{', '}', '\t');
export const smsText = fc.oneof(
  fc
    .tuple(
      fc.array(fc.oneof(word, fc.stringMatching(/^[0-9]{1,14}$/)), { minLength: 1, maxLength: 5 }),
      separator,
    )
    .map(([ws, s]) => ws.join(s)),
  oddText,
  hugeText,
);

/** A field's value replaced by something of the wrong kind or size. */
export const garbageValue: fc.Arbitrary<unknown> = fc.oneof(
  oddText,
  fc.integer(),
  fc.constantFrom(1e308, -0, Number.MAX_SAFE_INTEGER + 2, -1, 0),
  fc.double(),
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  hugeText,
);

/** How one request is spoilt on the wire (or not). */
export type Mutation =
  | { kind: 'asIs' }
  | { kind: 'drop'; index: number }
  | { kind: 'set'; index: number; value: unknown }
  | { kind: 'add'; name: string; value: unknown }
  | { kind: 'encoding'; as: 'form' | 'json' | 'text' | 'xml' | 'none' | 'utf16' | 'koi8' | 'multipart' }
  | { kind: 'raw'; body: string; contentType: string | null }
  | { kind: 'method'; method: 'GET' | 'PUT' | 'DELETE' | 'PATCH' | 'POST' }
  | { kind: 'huge' };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'asIs' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const), index: fc.nat(10) }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('set' as const), index: fc.nat(10), value: garbageValue }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      name: fc.constantFrom('__proto__', 'constructor', 'text[]', 'sessionId[]', 'toString', ''),
      value: garbageValue,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('encoding' as const),
      as: fc.constantFrom('form', 'json', 'text', 'xml', 'none', 'utf16', 'koi8', 'multipart'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('raw' as const),
      body: fc.oneof(
        oddText,
        fc.constantFrom('{', '{"a":', '[]', 'null', '"x"', '1', 'a=1&a=2&a', '%E0%A4%A'),
      ),
      contentType: fc.constantFrom(
        'application/json',
        'application/x-www-form-urlencoded',
        'text/plain',
        'application/xml',
        'application/json; charset=bogus',
        null,
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('method' as const),
      method: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'POST'),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'huge' as const }) },
);

/** Identifiers the sandbox would sell to: a case carrying one might buy, and is not generated. */
const SELLABLE = [...Object.values(TEST_METERS), ...Object.values(TEST_WATER_ACCOUNTS)];

/** Could this string, or a piece of it, be a Botswana mobile number (an airtime purchase's target)? */
function botswanaMobile(text: string): boolean {
  for (const piece of [text, ...text.split(/[^0-9+]+/)]) {
    if (piece.length < 7) continue;
    const found = normaliseMsisdn(piece, 'BW');
    if (found.ok && found.e164.startsWith('267')) return true;
  }
  return false;
}

/**
 * Whether a generated case could make a legitimate purchase (a sellable meter, a Botswana
 * mobile for airtime): such cases are left out, so "the ledger is unchanged" holds for every
 * case generated. Every string anywhere in the case is checked.
 */
export function mayBuy(value: unknown): boolean {
  const strings: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') strings.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value);
  return strings.some((s) => SELLABLE.some((id) => s.includes(id)) || botswanaMobile(s));
}
