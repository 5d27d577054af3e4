/**
 * SMS text measurement as phones do it: GSM 03.38 (GSM-7) when every character fits the basic set or
 * the extension table, UCS-2 otherwise; 160/153 septets or 70/67 code units per part.
 */

export type SmsEncoding = 'GSM-7' | 'UCS-2';

/** GSM 03.38 basic character set (the escape 0x1B itself is excluded: it is not a printable character). */
const GSM_BASIC = new Set(
  Array.from(
    '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
      '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
  ),
);

/** GSM 03.38 extension table: each costs two septets (escape + char). */
const GSM_EXTENSION = new Set(Array.from('\f^{}\\[~]|€'));

const SINGLE = { 'GSM-7': 160, 'UCS-2': 70 } as const;
const MULTI = { 'GSM-7': 153, 'UCS-2': 67 } as const;

/** Close GSM-7 equivalents for common characters that would otherwise force UCS-2. */
const TRANSLITERATIONS: Record<string, string> = {
  '\u2018': "'", // ‘
  '\u2019': "'", // ’
  '\u201A': "'", // ‚
  '\u201B': "'", // ‛
  '\u2032': "'", // ′
  '`': "'",
  '\u00B4': "'", // ´
  '\u201C': '"', // “
  '\u201D': '"', // ”
  '\u201E': '"', // „
  '\u201F': '"', // ‟
  '\u2033': '"', // ″
  '\u00AB': '"', // «
  '\u00BB': '"', // »
  '\u2010': '-', // hyphen
  '\u2011': '-', // non-breaking hyphen
  '\u2012': '-', // figure dash
  '\u2013': '-', // en dash
  '\u2014': '-', // em dash
  '\u2015': '-', // horizontal bar
  '\u2212': '-', // minus sign
  '\u2026': '...', // …
  '\u2022': '*', // •
  '\u00B7': '.', // ·
  '\u00D7': 'x', // ×
  '\t': ' ',
  '\u00A0': ' ', // no-break space
  '\u2002': ' ',
  '\u2003': ' ',
  '\u2007': ' ',
  '\u2009': ' ',
  '\u200A': ' ',
  '\u202F': ' ',
  '\u205F': ' ',
  '\u3000': ' ',
  '\u200B': '', // zero-width space
  '\u200C': '',
  '\u200D': '',
  '\u2060': '',
  '\uFEFF': '',
  '\u00AD': '', // soft hyphen
  '\u2028': '\n',
  '\u2029': '\n',
  œ: 'oe',
  Œ: 'OE',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ı: 'i',
};

/**
 * Septets per UTF-16 code unit below U+0400 (Latin and Greek, where every GSM character but €
 * lives): 1 basic, 2 extension, 0 not GSM. Screens and messages are measured on every hop; a
 * table read per code unit is what keeps that cheap.
 */
const SEPTETS_BELOW_0400 = new Uint8Array(0x400);
for (const ch of GSM_BASIC) SEPTETS_BELOW_0400[ch.charCodeAt(0)] = 1;
for (const ch of GSM_EXTENSION) if (ch.charCodeAt(0) < 0x400) SEPTETS_BELOW_0400[ch.charCodeAt(0)] = 2;
const EURO = 0x20ac;

/** Septets of one UTF-16 code unit, 0 when it is not a GSM character (a surrogate never is). */
function septetsOfCode(code: number): number {
  return code < 0x400 ? SEPTETS_BELOW_0400[code] : code === EURO ? 2 : 0;
}

/** GSM-7 septets of `text`, or -1 as soon as a character is not GSM. */
function gsmLength(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i += 1) {
    const septets = septetsOfCode(text.charCodeAt(i));
    if (septets === 0) return -1;
    length += septets;
  }
  return length;
}

/** Whether one character (a code point: astral ones are two units, never GSM) is in GSM 03.38. */
function isGsmChar(ch: string): boolean {
  return ch.length === 1 && septetsOfCode(ch.charCodeAt(0)) > 0;
}

/** Length of one character in the given encoding: septets, or UTF-16 code units (astral chars are 2). */
function charLength(ch: string, encoding: SmsEncoding): number {
  return encoding === 'GSM-7' ? septetsOfCode(ch.charCodeAt(0)) : ch.length;
}

function transliterateChar(ch: string): string {
  if (isGsmChar(ch)) return ch;
  const mapped = TRANSLITERATIONS[ch];
  if (mapped !== undefined) return mapped;
  // Accented letters not in GSM-7 (á, ê, ç, ő…): drop the combining marks and keep the base letter.
  const base = ch.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  if (base.length > 0 && base !== ch && Array.from(base).every(isGsmChar)) return base;
  return ch;
}

/** Replace characters outside GSM 03.38 with close GSM-7 equivalents where one exists; others are kept. */
export function transliterate(text: string): string {
  // GSM characters are all composed already: a GSM text is its own NFC and needs nothing replaced.
  if (gsmLength(text) >= 0) return text;
  let out = '';
  // NFC first so a letter followed by a combining accent (e + ◌́) becomes the GSM letter é.
  for (const ch of text.normalize('NFC')) out += transliterateChar(ch);
  return out;
}

/** Encoding phones would choose: GSM-7 iff every char is in the GSM 03.38 basic set or extension table. */
export function encodingOf(text: string): SmsEncoding {
  return gsmLength(text) >= 0 ? 'GSM-7' : 'UCS-2';
}

/** Length as phones count it: GSM-7 septets (extension chars count 2) or UCS-2 code units (astral chars 2). */
export function measure(text: string): { encoding: SmsEncoding; length: number } {
  const length = gsmLength(text);
  return length >= 0 ? { encoding: 'GSM-7', length } : { encoding: 'UCS-2', length: text.length };
}

/**
 * Split text into the segments that go in each concatenated part. A GSM-7 extension character
 * (escape + char) and a UCS-2 surrogate pair are never split across parts, so a part may carry
 * one unit less than the maximum. Empty text is one empty segment (an empty SMS is still one PDU).
 */
export function splitSmsSegments(text: string): string[] {
  const { encoding, length } = measure(text);
  if (length <= SINGLE[encoding]) return [text];
  const max = MULTI[encoding];
  const segments: string[] = [];
  let current = '';
  let used = 0;
  for (const ch of text) {
    const cost = charLength(ch, encoding);
    if (used + cost > max) {
      segments.push(current);
      current = '';
      used = 0;
    }
    current += ch;
    used += cost;
  }
  segments.push(current);
  return segments;
}

/** SMS parts: 160/153 for GSM-7, 70/67 for UCS-2; an extension char is never split across parts. */
export function smsParts(text: string): { encoding: SmsEncoding; length: number; parts: number } {
  const { encoding, length } = measure(text);
  const parts = length <= SINGLE[encoding] ? 1 : splitSmsSegments(text).length;
  return { encoding, length, parts };
}
