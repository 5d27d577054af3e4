import fc from 'fast-check';
import { encodingOf, measure, smsParts, splitSmsSegments, transliterate } from './gsm';

const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '\f^{}\\[~]|€';

describe('encodingOf / measure', () => {
  test.each([
    ['empty', '', 'GSM-7', 0],
    ['plain ascii', 'Your token 1234-5678', 'GSM-7', 20],
    ['whole basic set', GSM_BASIC, 'GSM-7', Array.from(GSM_BASIC).length],
    ['each extension char counts 2', GSM_EXTENSION, 'GSM-7', 20],
    ['euro amount', 'Paid €10', 'GSM-7', 9],
    ['mixed basic and extension', 'a[b]c', 'GSM-7', 7],
    ['curly quote forces UCS-2', 'It’s here', 'UCS-2', 9],
    ['accent outside GSM (á)', 'Está', 'UCS-2', 4],
    ['lowercase ç is not GSM', 'ça', 'UCS-2', 2],
    ['en dash', 'a – b', 'UCS-2', 5],
    ['tab is not GSM', 'a\tb', 'UCS-2', 3],
    ['escape char itself is not GSM', 'a\u001bb', 'UCS-2', 3],
    ['extension char in UCS-2 counts 1', '{ü…}', 'UCS-2', 4],
    ['emoji is an astral char: 2 code units', 'ok 👍', 'UCS-2', 5],
    ['Setswana with ASCII only stays GSM', 'Dumela mma', 'GSM-7', 10],
  ])('%s', (_label, text, encoding, length) => {
    expect(encodingOf(text)).toBe(encoding);
    expect(measure(text)).toEqual({ encoding, length });
  });
});

describe('smsParts boundaries', () => {
  const a = (n: number) => 'a'.repeat(n);
  const u = (n: number) => 'ж'.repeat(n);
  test.each([
    ['GSM 1 char', 'a', 'GSM-7', 1, 1],
    ['GSM 160', a(160), 'GSM-7', 160, 1],
    ['GSM 161', a(161), 'GSM-7', 161, 2],
    ['GSM 153*2', a(306), 'GSM-7', 306, 2],
    ['GSM 153*2+1', a(307), 'GSM-7', 307, 3],
    ['GSM 158 + € = 160 septets', a(158) + '€', 'GSM-7', 160, 1],
    ['GSM 159 + € = 161 septets', a(159) + '€', 'GSM-7', 161, 2],
    ['escape never split: 152 + { needs a new part', a(152) + '{' + a(10), 'GSM-7', 164, 2],
    ['escape never split: 152 + { at 306 limit', a(152) + '{' + a(152), 'GSM-7', 306, 3],
    ['UCS-2 70', u(70), 'UCS-2', 70, 1],
    ['UCS-2 71', u(71), 'UCS-2', 71, 2],
    ['UCS-2 67*2', u(134), 'UCS-2', 134, 2],
    ['UCS-2 67*2+1', u(135), 'UCS-2', 135, 3],
    ['35 emoji = 70 units', '😀'.repeat(35), 'UCS-2', 70, 1],
    ['36 emoji = 72 units', '😀'.repeat(36), 'UCS-2', 72, 2],
    ['surrogate pair never split: 66 + emoji', u(66) + '😀' + u(5), 'UCS-2', 73, 2],
    ['surrogate pair never split at 134', u(66) + '😀' + u(66), 'UCS-2', 134, 3],
  ])('%s', (_label, text, encoding, length, parts) => {
    expect(smsParts(text)).toEqual({ encoding, length, parts });
    const segments = splitSmsSegments(text);
    expect(segments).toHaveLength(parts);
    expect(segments.join('')).toBe(text);
  });

  it('keeps the extension char whole at the start of the next segment', () => {
    const segments = splitSmsSegments('a'.repeat(152) + '{' + 'b'.repeat(10));
    expect(segments).toEqual(['a'.repeat(152), '{' + 'b'.repeat(10)]);
  });

  it('empty text is one empty part', () => {
    expect(smsParts('')).toEqual({ encoding: 'GSM-7', length: 0, parts: 1 });
    expect(splitSmsSegments('')).toEqual(['']);
  });
});

describe('transliterate', () => {
  test.each([
    ['curly single quotes', '‘It’s’', "'It's'"],
    ['curly double quotes', '“Token”', '"Token"'],
    ['guillemets', '«oui»', '"oui"'],
    ['en and em dash', '10–20 — ok', '10-20 - ok'],
    ['ellipsis', 'Wait…', 'Wait...'],
    ['non-breaking and thin spaces', 'P\u00a0100\u2009kWh', 'P 100 kWh'],
    ['zero-width chars removed', 'ab\u200bc\ufeff', 'abc'],
    ['accented letters outside GSM → base', 'Está ação crème', 'Esta acao crème'],
    ['GSM accented letters kept', 'éèùìòÇØøÅåÄÖÑÜäöñüà', 'éèùìòÇØøÅåÄÖÑÜäöñüà'],
    ['combining accent composed to GSM é', 'Cafe\u0301', 'Café'],
    ['ligatures and stroke letters', 'œuvre Łódź', 'oeuvre Lodz'],
    ['tab → space', 'a\tb', 'a b'],
    ['extension chars untouched', '{[€]}', '{[€]}'],
    ['no equivalent: kept', 'Привет 👍', 'Привет 👍'],
  ])('%s', (_label, input, expected) => {
    expect(transliterate(input)).toBe(expected);
  });

  it('makes typical message text GSM-7', () => {
    expect(encodingOf(transliterate('Your token is “1234 5678” – thanks…'))).toBe('GSM-7');
  });
});

describe('properties', () => {
  const alphabet = [...Array.from(GSM_BASIC), ...Array.from(GSM_EXTENSION), 'ж', '😀', '’', 'á'];
  const textArb = fc.oneof(
    fc.string({ unit: fc.constantFrom(...Array.from(GSM_BASIC + GSM_EXTENSION)), maxLength: 500 }),
    fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 400 }),
    fc.string({ unit: 'grapheme', maxLength: 300 }),
  );

  it('parts equals segments length, segments rebuild the text, and every segment fits', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        const { encoding, parts } = smsParts(text);
        const segments = splitSmsSegments(text);
        expect(segments).toHaveLength(parts);
        expect(segments.join('')).toBe(text);
        const limit = parts === 1 ? (encoding === 'GSM-7' ? 160 : 70) : encoding === 'GSM-7' ? 153 : 67;
        for (const segment of segments) {
          // A segment is measured in the whole message's encoding.
          const length = encoding === 'GSM-7' ? measure(segment).length : segment.length;
          expect(length).toBeLessThanOrEqual(limit);
        }
      }),
    );
  });

  it('measures as counting each character in the GSM tables does (septets, else UTF-16 units)', () => {
    const basic = new Set(Array.from(GSM_BASIC));
    const extension = new Set(Array.from(GSM_EXTENSION));
    fc.assert(
      fc.property(textArb, (text) => {
        const chars = Array.from(text);
        const gsm = chars.every((ch) => basic.has(ch) || extension.has(ch));
        const expected = gsm
          ? { encoding: 'GSM-7', length: chars.reduce((n, ch) => n + (extension.has(ch) ? 2 : 1), 0) }
          : { encoding: 'UCS-2', length: text.length };
        expect(measure(text)).toEqual(expected);
        expect(encodingOf(text)).toBe(expected.encoding);
        // A GSM text is left exactly as it is.
        if (gsm) expect(transliterate(text)).toBe(text);
      }),
    );
  });

  it('transliterate is idempotent', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        const once = transliterate(text);
        expect(transliterate(once)).toBe(once);
      }),
    );
  });
});
