import { parseDecimalAmount } from '../../vas/money';
import type { CommandName, Keywords } from './keywords';

/**
 * The SMS command grammar: one line of text → a command, or the reason it is not one. Pure and
 * total (never throws, whatever the text): identifiers are only checked to be digits here; the
 * catalogue's rules and the amount limits are applied by the conversation, which has them.
 *
 * The first word is the keyword (any language's alias, case-insensitive); words are separated by
 * spaces, `*` or `#`; punctuation around words and a leading `+` in numbers are tolerated.
 */

/** A purchase command: a quote is asked for it. */
export type BuyCommand =
  | {
      kind: 'buy';
      product: 'ELECTRICITY' | 'WATER';
      /** null: `ELEC 100`, the number's last meter of this product (its saved meters). */
      identifier: string | null;
      amountMinor: number;
      /** `ELEC <meter> <amount> <phone>`: a gift, the token to that number (as typed). */
      beneficiary?: string;
    }
  /** Airtime: network and number are optional (own number; the only provider, or a question). */
  | { kind: 'buy'; product: 'AIRTIME'; network: string | null; number: string | null; amountMinor: number };

/** A field agent's sale: a purchase for a customer, whose number gets the token. */
export type SellCommand =
  | {
      kind: 'sell';
      product: 'ELECTRICITY' | 'WATER';
      identifier: string;
      amountMinor: number;
      customer: string;
    }
  | { kind: 'sell'; product: 'AIRTIME'; network: string | null; customer: string; amountMinor: number };

export type SmsCommand =
  | BuyCommand
  | SellCommand
  /** Agents: `BAL <PIN>`, `SALES <PIN>` (the PIN checked, then redacted, before the job). */
  | { kind: 'balance'; pin: string | null }
  | { kind: 'sales'; pin: string | null }
  | { kind: 'pinChange'; oldPin: string; newPin: string }
  | { kind: 'block' }
  /** The agent network, the PIN last (checked, then redacted, at the intake). */
  | { kind: 'transfer'; to: string; amountMinor: number; pin: string }
  | { kind: 'network'; pin: string }
  | { kind: 'deposit'; amountMinor: number; reference: string; pin: string }
  | { kind: 'topup'; amountMinor: number; pin: string }
  | { kind: 'summary'; pin: string }
  | { kind: 'supervise'; status: 'active' | 'disabled'; target: string; pin: string }
  /** `YES [code]`: buy the pending quote; `rest` is what followed the code (an agent's PIN). */
  | { kind: 'yes'; code: string | null; rest: string[] }
  | { kind: 'no'; code: string | null }
  | { kind: 'token'; identifier: string | null }
  /** The sender's saved meters and accounts, per product. */
  | { kind: 'meters' }
  | { kind: 'lang'; language: string }
  | { kind: 'help' };

/** Why a text is not a command; `command` when the keyword was understood. */
export type ParseProblem =
  | { code: 'unknownCommand' }
  | { code: 'usage'; command: CommandName }
  | { code: 'amount'; command: CommandName; reason: 'notNumber' | 'notPositive' | 'tooManyDecimals' }
  | { code: 'identifier'; command: CommandName }
  | { code: 'phone'; command: CommandName }
  | { code: 'quoteCode'; command: CommandName }
  | { code: 'language'; command: CommandName }
  | { code: 'pin'; command: CommandName };

export type ParseResult =
  | { ok: true; command: SmsCommand; language: string | null }
  | { ok: false; problem: ParseProblem; language: string | null };

/** Longest text read: an SMS is at most a few parts; anything longer is not a command. */
const MAX_TEXT = 480;
const SEPARATORS = /[\s*#]+/u;
/** Punctuation people put around words ("ELEC 0123, 100."). `?` is HELP's alias, kept when alone. */
const AROUND = /^[.,;:!?"'()[\]<>]+|[.,;:!?"'()[\]<>]+$/gu;
const DIGITS = /^\d+$/;
/** `100`, `P100`, `BWP100`, `25.50`: Botswana prices are often written with the pula sign. */
const AMOUNT = /^(?:BWP|P)?(\d[\d.]*)$/i;
const CURRENCY_WORD = /^(?:BWP|P)$/i;
/** A phone number as typed: optional `+`, digits (spaces were separators already). */
const PHONE = /^\+?\d{3,15}$/;
/** A gift's phone after the amount: 8 digits at least, which no amount ever has. */
const GIFT_PHONE = /^\+?\d{8,15}$/;
/** A lone word this long is a meter sent without its amount, not an amount (`ELEC 01234567890`). */
const MAX_LONE_AMOUNT_DIGITS = 6;
/** A quote's code as typed, or the intake's redaction of a number an agent put there (`YES XXXX`). */
const QUOTE_CODE = /^(?:\d{4,8}|XXXX)$/;

function words(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(SEPARATORS)) {
    if (raw === '') continue;
    const word = raw === '?' ? raw : raw.replace(AROUND, '');
    if (word !== '') out.push(word);
  }
  return out;
}

type AmountRead =
  { ok: true; minor: number } | { ok: false; reason: 'notNumber' | 'notPositive' | 'tooManyDecimals' };

function readAmount(word: string | undefined): AmountRead {
  const match = word === undefined ? null : AMOUNT.exec(word);
  if (!match) return { ok: false, reason: 'notNumber' };
  return parseDecimalAmount(match[1]);
}

/** The amount is the last word; a currency word before it (`BWP 100`) is dropped. */
function splitAmount(args: string[]): { head: string[]; amount: AmountRead } {
  const amount = readAmount(args[args.length - 1]);
  let head = args.slice(0, -1);
  if (head.length > 0 && CURRENCY_WORD.test(head[head.length - 1])) head = head.slice(0, -1);
  return { head, amount };
}

function parseMeterProduct(
  command: CommandName,
  product: 'ELECTRICITY' | 'WATER',
  args: string[],
): SmsCommand | ParseProblem {
  if (args.length < 2) return { code: 'usage', command };
  const { head, amount } = splitAmount(args);
  if (head.length === 0) return { code: 'usage', command };
  // People group long meter numbers: "0412 345 6789 100" is meter 04123456789, amount 100.
  if (!head.every((w) => DIGITS.test(w))) return { code: 'identifier', command };
  if (!amount.ok) return { code: 'amount', command, reason: amount.reason };
  return { kind: 'buy', product, identifier: head.join(''), amountMinor: amount.minor };
}

/**
 * A subscriber's `ELEC`/`WATER`: `<meter> <amount>`; `<amount>` alone for the last meter bought
 * for; `<meter> <amount> <phone>` for a gift (the phone is the last word, 8+ digits).
 */
function parseSubscriberMeter(
  command: CommandName,
  product: 'ELECTRICITY' | 'WATER',
  args: string[],
): SmsCommand | ParseProblem {
  const { head, amount } = splitAmount(args);
  if (args.length > 0 && head.length === 0) {
    if (DIGITS.test(args[args.length - 1]) && args[args.length - 1].length > MAX_LONE_AMOUNT_DIGITS)
      return { code: 'usage', command };
    if (!amount.ok) return { code: 'amount', command, reason: amount.reason };
    return { kind: 'buy', product, identifier: null, amountMinor: amount.minor };
  }
  const phone = args[args.length - 1];
  if (args.length >= 3 && GIFT_PHONE.test(phone)) {
    const gift = parseMeterProduct(command, product, args.slice(0, -1));
    return isProblem(gift) ? gift : ({ ...gift, beneficiary: phone } as SmsCommand);
  }
  return parseMeterProduct(command, product, args);
}

function parseAirtime(args: string[]): SmsCommand | ParseProblem {
  const command = 'AIR';
  if (args.length < 1) return { code: 'usage', command };
  const { head, amount } = splitAmount(args);
  const numbers = head.filter((w) => /^\+?\d/.test(w));
  const names = head.filter((w) => !/^\+?\d/.test(w));
  if (numbers.length > 1) return { code: 'usage', command };
  if (numbers.length === 1 && !PHONE.test(numbers[0])) return { code: 'phone', command };
  if (!amount.ok) return { code: 'amount', command, reason: amount.reason };
  return {
    kind: 'buy',
    product: 'AIRTIME',
    network: names.length > 0 ? names.join(' ') : null,
    number: numbers[0] ?? null,
    amountMinor: amount.minor,
  };
}

function parseCode(command: CommandName, word: string | undefined): string | null | ParseProblem {
  if (word === undefined) return null;
  return QUOTE_CODE.test(word) ? word : { code: 'quoteCode', command };
}

function isProblem(value: unknown): value is ParseProblem {
  return typeof value === 'object' && value !== null && !('kind' in value);
}

function parseArgs(command: CommandName, args: string[], keywords: Keywords): SmsCommand | ParseProblem {
  switch (command) {
    case 'ELEC':
      return parseSubscriberMeter(command, 'ELECTRICITY', args);
    case 'WATER':
      return parseSubscriberMeter(command, 'WATER', args);
    case 'AIR':
      return parseAirtime(args);
    case 'YES': {
      const code = parseCode(command, args[0]);
      return isProblem(code) ? code : { kind: 'yes', code, rest: args.slice(1) };
    }
    case 'NO': {
      if (args.length > 1) return { code: 'usage', command };
      const code = parseCode(command, args[0]);
      return isProblem(code) ? code : { kind: 'no', code };
    }
    case 'TOKEN':
      if (args.length === 0) return { kind: 'token', identifier: null };
      return args.every((w) => DIGITS.test(w))
        ? { kind: 'token', identifier: args.join('') }
        : { code: 'identifier', command };
    case 'LANG': {
      if (args.length !== 1) return { code: 'usage', command };
      const language = keywords.language(args[0]);
      return language ? { kind: 'lang', language } : { code: 'language', command };
    }
    case 'HELP':
      return { kind: 'help' };
    case 'METERS':
      return args.length === 0 ? { kind: 'meters' } : { code: 'usage', command };
    case 'SELL':
      return parseSell(args, keywords);
    case 'BAL':
    case 'SALES': {
      if (args.length > 1) return { code: 'usage', command };
      if (args.length === 1 && !PIN_WORD.test(args[0])) return { code: 'pin', command };
      return { kind: command === 'BAL' ? 'balance' : 'sales', pin: args[0] ?? null };
    }
    case 'PIN':
      if (args.length !== 2) return { code: 'usage', command };
      if (!args.every((w) => PIN_WORD.test(w))) return { code: 'pin', command };
      return { kind: 'pinChange', oldPin: args[0], newPin: args[1] };
    case 'BLOCK':
      return { kind: 'block' };
    case 'TRANSFER':
    case 'AGENTS':
    case 'DEPOSIT':
    case 'TOPUP':
    case 'SUMMARY':
    case 'DISABLE':
    case 'ENABLE':
      return parseNetwork(command, args);
  }
}

/** A bank's reference as an agent copies it from the slip: letters, digits, `-`, `/`, `.`. */
const BANK_REFERENCE = /^[A-Za-z0-9][A-Za-z0-9\-/.]{2,39}$/;

/**
 * The network's commands, each ending with the PIN: `TRANSFER <phone> <amount> <PIN>`,
 * `AGENTS <PIN>`, `DEPOSIT <amount> <bank reference> <PIN>`, `TOPUP <amount> <PIN>`,
 * `SUMMARY <PIN>`, `DISABLE|ENABLE <phone> <PIN>`.
 */
function parseNetwork(command: CommandName, args: string[]): SmsCommand | ParseProblem {
  const pin = args[args.length - 1];
  if (pin === undefined) return { code: 'usage', command };
  if (!PIN_WORD.test(pin)) return { code: 'pin', command };
  const rest = args.slice(0, -1);
  switch (command) {
    case 'AGENTS':
    case 'SUMMARY':
      if (rest.length > 0) return { code: 'usage', command };
      return { kind: command === 'AGENTS' ? 'network' : 'summary', pin };
    case 'DISABLE':
    case 'ENABLE':
      if (rest.length !== 1) return { code: 'usage', command };
      if (!PHONE.test(rest[0])) return { code: 'phone', command };
      return {
        kind: 'supervise',
        status: command === 'ENABLE' ? 'active' : 'disabled',
        target: rest[0],
        pin,
      };
    case 'TOPUP': {
      if (rest.length === 0) return { code: 'usage', command };
      const { head, amount } = splitAmount(rest);
      if (head.length > 0) return { code: 'usage', command };
      if (!amount.ok) return { code: 'amount', command, reason: amount.reason };
      return { kind: 'topup', amountMinor: amount.minor, pin };
    }
    case 'TRANSFER': {
      if (rest.length < 2) return { code: 'usage', command };
      const { head, amount } = splitAmount(rest);
      if (head.length !== 1) return { code: 'usage', command };
      if (!PHONE.test(head[0])) return { code: 'phone', command };
      if (!amount.ok) return { code: 'amount', command, reason: amount.reason };
      return { kind: 'transfer', to: head[0], amountMinor: amount.minor, pin };
    }
    case 'DEPOSIT': {
      // DEPOSIT [BWP] <amount> <reference> <PIN>: the reference is the last word before the PIN.
      if (rest.length < 2) return { code: 'usage', command };
      const reference = rest[rest.length - 1];
      const { head, amount } = splitAmount(rest.slice(0, -1));
      if (head.length > 0 || !BANK_REFERENCE.test(reference)) return { code: 'usage', command };
      if (!amount.ok) return { code: 'amount', command, reason: amount.reason };
      return { kind: 'deposit', amountMinor: amount.minor, reference, pin };
    }
    default:
      return { code: 'usage', command };
  }
}

/** A PIN as typed (4 to 6 digits; the registry checks the rest), or the intake's redaction. */
const PIN_WORD = /^(?:\d{4,6}|XXXX)$/;

/** What the intake writes in place of a PIN before the message is queued or stored. */
export const REDACTED_PIN = 'XXXX';

/**
 * `SELL ELEC <meter> <amount> <customer phone>`, `SELL WATER <account> <amount> <phone>`,
 * `SELL AIR <network> <phone> <amount>`: the product word is any alias of ELEC, WATER or AIR.
 */
function parseSell(args: string[], keywords: Keywords): SmsCommand | ParseProblem {
  const command = 'SELL';
  const product = args.length > 0 ? keywords.meaning(args[0].toUpperCase())?.command : undefined;
  const rest = args.slice(1);
  if (product === 'AIR') {
    const air = parseAirtime(rest);
    if (isProblem(air)) return { ...air, command } as ParseProblem;
    if (air.kind !== 'buy' || air.product !== 'AIRTIME' || air.number === null)
      return { code: 'usage', command };
    return {
      kind: 'sell',
      product: 'AIRTIME',
      network: air.network,
      customer: air.number,
      amountMinor: air.amountMinor,
    };
  }
  if (product !== 'ELEC' && product !== 'WATER') return { code: 'usage', command };
  if (rest.length < 3) return { code: 'usage', command };
  const customer = rest[rest.length - 1];
  if (!PHONE.test(customer)) return { code: 'phone', command };
  const sale = parseMeterProduct(product, product === 'ELEC' ? 'ELECTRICITY' : 'WATER', rest.slice(0, -1));
  if (isProblem(sale)) return { ...sale, command } as ParseProblem;
  if (sale.kind !== 'buy' || sale.product === 'AIRTIME' || sale.identifier === null)
    return { code: 'usage', command };
  return {
    kind: 'sell',
    product: sale.product,
    identifier: sale.identifier,
    amountMinor: sale.amountMinor,
    customer,
  };
}

/** Parse one inbound SMS text. Never throws. */
export function parseSmsCommand(text: string, keywords: Keywords): ParseResult {
  const all = words(String(text).slice(0, MAX_TEXT).normalize('NFKC'));
  const meaning = all.length > 0 ? keywords.meaning(all[0].toUpperCase()) : undefined;
  if (!meaning) return { ok: false, problem: { code: 'unknownCommand' }, language: null };
  const parsed = parseArgs(meaning.command, all.slice(1), keywords);
  return isProblem(parsed)
    ? { ok: false, problem: parsed, language: meaning.language }
    : { ok: true, command: parsed, language: meaning.language };
}
