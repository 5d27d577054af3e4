import type {
  UssdHop,
  UssdHttpRequest,
  UssdHttpResponse,
  UssdParseError,
  UssdReply,
  UssdRoute,
} from './types';

/**
 * Field readers shared by the adapters: each checks one wire fact and names the field when it
 * is wrong, so a malformed request gets a 400 that says what to fix.
 */

/** Session ids end up inside a Redis hash tag, so `{`, `}`, spaces and newlines are refused. */
export const SESSION_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
/** A caller's number: optional `+`, 7 to 15 digits. */
export const PHONE = /^\+?[1-9]\d{6,14}$/;
export const SERVICE_CODE = /^[0-9*#A-Za-z]{1,32}$/;
export const MAX_TEXT = 1000;

export type Fields = Record<string, unknown>;

export function isError(value: unknown): value is UssdParseError {
  return (
    typeof value === 'object' &&
    value !== null &&
    'error' in value &&
    typeof (value as UssdParseError).error === 'string'
  );
}

/** The JSON (or form) body as an object. */
export function bodyOf(req: UssdHttpRequest, what = 'a JSON object body'): Fields | UssdParseError {
  const body = req.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { error: `expected ${what}` };
  return body as Fields;
}

/** The query string as an object. */
export function queryOf(req: UssdHttpRequest): Fields {
  const q = req.query;
  return q !== null && typeof q === 'object' ? (q as Fields) : {};
}

/** Hops on the one URL as a POST or a GET, for formats whose transport is either (read with `fieldsOf`). */
export const POST_OR_GET: readonly UssdRoute[] = [
  { method: 'POST', path: '', kind: 'hop' },
  { method: 'GET', path: '', kind: 'hop' },
];

/** A form/JSON POST body, or the query string of a GET: for formats that arrive either way. */
export function fieldsOf(req: UssdHttpRequest): Fields {
  return req.method === 'GET' || req.body === null || typeof req.body !== 'object'
    ? queryOf(req)
    : (req.body as Fields);
}

/** The first of `names` present, as a string (numbers accepted: some gateways send ids as numbers). */
export function text(
  fields: Fields,
  names: string | readonly string[],
  options: { allowEmpty?: boolean } = {},
): string | UssdParseError {
  const list = typeof names === 'string' ? [names] : names;
  const name = list.find((n) => fields[n] !== undefined && fields[n] !== null) ?? list[0];
  const value = fields[name];
  if (value === undefined || value === null) return { error: `missing field: ${list.join(' or ')}` };
  if (typeof value !== 'string' && typeof value !== 'number')
    return { error: `field ${name} must be a single value` };
  const trimmed = String(value).trim();
  if (!options.allowEmpty && trimmed === '') return { error: `missing field: ${name}` };
  if (trimmed.length > MAX_TEXT) return { error: `field ${name} is longer than ${MAX_TEXT} characters` };
  return trimmed;
}

export function optionalText(fields: Fields, name: string): string | undefined {
  const value = fields[name];
  return (typeof value === 'string' || typeof value === 'number') && String(value).trim() !== ''
    ? String(value).trim()
    : undefined;
}

export function sessionIdOf(fields: Fields, names: string | readonly string[]): string | UssdParseError {
  const id = text(fields, names);
  if (isError(id)) return id;
  return SESSION_ID.test(id)
    ? id
    : { error: `field ${typeof names === 'string' ? names : names[0]} has unexpected characters` };
}

/** E.164 digits of the caller, from a field that may or may not carry `+`. */
export function msisdnOf(fields: Fields, names: string | readonly string[]): string | UssdParseError {
  const phone = text(fields, names);
  if (isError(phone)) return phone;
  return PHONE.test(phone)
    ? phone.replace(/^\+/, '')
    : {
        error: `field ${typeof names === 'string' ? names : names[0]} must be an international number (7 to 15 digits)`,
      };
}

/** The two fields every hop carries: the session id, then the caller's number. */
export function callerOf(
  fields: Fields,
  sessionIdNames: string | readonly string[],
  msisdnNames: string | readonly string[],
): { sessionId: string; msisdn: string } | UssdParseError {
  const sessionId = sessionIdOf(fields, sessionIdNames);
  if (isError(sessionId)) return sessionId;
  const msisdn = msisdnOf(fields, msisdnNames);
  return isError(msisdn) ? msisdn : { sessionId, msisdn };
}

export function booleanOf(fields: Fields, name: string): boolean | UssdParseError {
  const value = fields[name];
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  return { error: value === undefined ? `missing field: ${name}` : `field ${name} must be true or false` };
}

export const json = (body: unknown, status = 200) => ({
  status,
  contentType: 'application/json; charset=utf-8',
  body: JSON.stringify(body),
});

/** A text/plain answer, with the format's own headers when it has any. */
export function plain(body: string, headers?: Record<string, string>): UssdHttpResponse {
  return { status: 200, contentType: 'text/plain; charset=utf-8', body, ...(headers && { headers }) };
}

/** `CON …` continues, `END …` ends (Africa's Talking, Safaricom-style gateways). */
export const conEnd = (reply: UssdReply): UssdHttpResponse =>
  plain(`${reply.end ? 'END' : 'CON'} ${reply.text}`);

/** Where a JSON format that flags the first dial with a boolean keeps its fields. */
export interface FlaggedHopFields {
  sessionId: string;
  msisdn: string;
  /** `true` on the first dial, whose input is then the dialled code (not read as input). */
  isNew: string;
  /** The latest input only. */
  input: string;
  network: string;
}

/**
 * A hop of a JSON format with a boolean new-session flag and the latest input (Arkesel, Nalo);
 * `echo` is what the reply must send back (kept as the hop's `raw`).
 */
export function flaggedHop(
  req: UssdHttpRequest,
  aggregator: string,
  names: FlaggedHopFields,
  echo: (body: Fields, sessionId: string) => unknown,
): UssdHop | UssdParseError {
  const body = bodyOf(req);
  if (isError(body)) return body;
  const caller = callerOf(body, names.sessionId, names.msisdn);
  if (isError(caller)) return caller;
  const isNew = booleanOf(body, names.isNew);
  if (isError(isNew)) return isNew;
  const input = text(body, names.input, { allowEmpty: true });
  if (isError(input)) return input;
  return {
    aggregator,
    ...caller,
    serviceCode: isNew ? input : '',
    text: { kind: 'latest', value: input },
    isNew,
    network: optionalText(body, names.network),
    raw: echo(body, caller.sessionId),
  };
}

/** A service code however a gateway spells it (`*384#`, `*384`, `384#`, `384`) → `384`. */
function codeKey(code: string): string {
  return code.trim().replace(/^\*+/, '').replace(/#+$/, '');
}

/**
 * Whether a text is written as a dial string (its `*` in front or its `#` behind: `*384*1#`), so
 * a code at its start is the dialled code; a plain typed `384` never is.
 */
export function isDialString(value: string): boolean {
  const text = value.trim();
  return text.startsWith('*') || text.endsWith('#');
}

/**
 * What follows the dialled code in a whole dial string (Advanta's `INPUT`, Hubtel's first
 * `Message`): `*384#` → `''`, `*384*1*01234567890#` → `1*01234567890`, whatever the spelling of
 * the code (`*384#`, `384`) or of the string (`384*1`, `*384#*1`, with or without the `#`).
 * Undefined when `value` is not a dial string starting with the code: a plain input, another code.
 */
export function afterDialledCode(value: string, serviceCode: string): string | undefined {
  const key = codeKey(serviceCode);
  if (key === '' || !/^[0-9*]+$/.test(key)) return undefined;
  const dial = value.trim();
  // One leading `*` and one trailing `#` are the dial string's own marks; what is inside was typed.
  const inner = dial.replace(/^\*/, '').replace(/#$/, '');
  if (inner === key) return '';
  for (const lead of [`${key}*`, `${key}#*`]) if (inner.startsWith(lead)) return inner.slice(lead.length);
  return undefined;
}

/**
 * What was dialled after the service code, from a dialled string that holds both
 * (`*384*1*01234567890*100#` with code `384` or `*384#` → `1*01234567890*100`); undefined for
 * the code alone, another code, or anything that is not a dialled string of digits.
 */
export function dialledAfterCode(dialled: string, serviceCode: string): string | undefined {
  if (!isDialString(dialled)) return undefined;
  const after = afterDialledCode(dialled, serviceCode);
  return after !== undefined && after !== '' && /^[0-9*]+$/.test(after) ? after : undefined;
}
