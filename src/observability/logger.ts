import { AsyncLocalStorage } from 'node:async_hooks';
import winston from 'winston';
import TransportStream from 'winston-transport';

/** Per-request (hop, job, HTTP call) context carried through async calls so every log line has its id. */
export interface LogContext {
  requestId: string;
}

const contextStore = new AsyncLocalStorage<LogContext>();

/** Run `fn` with `context` attached to every log line written inside it. */
export function withLogContext<T>(context: LogContext, fn: () => T): T {
  return contextStore.run(context, fn);
}

export function currentRequestId(): string | undefined {
  return contextStore.getStore()?.requestId;
}

/**
 * The one masking of a phone number (or a subscriber identifier shown on a screen) for logs and
 * screens. Separators and a leading `+` are dropped; the country-code prefix (first 3 characters)
 * and the last 4 stay and the middle becomes `*`, length preserved: `26771234567` → `267****4567`.
 * Values shorter than 10 characters (national or partial numbers) keep only their last 2, so at
 * least three characters are always hidden: `71234567` → `******67`, `12` → `**`.
 */
export function maskMsisdn(msisdn: string): string {
  const s = msisdn.replace(/[^0-9A-Za-z]/g, '');
  if (s.length >= 10) return s.slice(0, 3) + '*'.repeat(s.length - 7) + s.slice(-4);
  if (s.length <= 2) return '*'.repeat(s.length);
  return '*'.repeat(s.length - 2) + s.slice(-2);
}

/** Tokens unlock value: show only the last four digits. */
export function maskToken(token: string): string {
  const digits = token.replace(/\D/g, '');
  return `****${digits.slice(-4)}`;
}

/** Keys whose values are never shown (`[redacted]`), phone numbers, and prepaid tokens. */
export const SECRET_KEYS =
  /pass(word)?|secret|authorization|api_?key|access_?token|refresh_?token|^pin$|cookie/i;
// `payer`: a statement line's (a reconciliation mismatch's facts, src/reconciliation/match.ts).
export const MSISDN_KEYS = /msisdn|phone|^to$|^from$|^payer$|beneficiary|requester/i;
export const TOKEN_KEYS = /^tokens?$|^raw_?token$/i;

/** A date or a time (`2026-11-01`, `2026-11-01T00:00:00.000Z`): under `from`/`to` it is no number to mask. */
const DATE_LIKE = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** Under a phone-number key: a value to mask as a number (not a word, not masked already, not a date). */
export function isNumberToMask(value: string): boolean {
  return /\d/.test(value) && !value.includes('*') && !DATE_LIKE.test(value.trim());
}

/** `scheme://user:password@` in a URL (a base URL or REDIS_URL with credentials in it). */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * Numbers inside free text, whatever the key: a UUID (kept as is: ids must stay searchable), a
 * 20-digit prepaid token grouped by 4 or run together (16+ digits), a phone-number-like run of
 * 9 to 15 digits (MSISDNs, meter and account numbers), or a national number of 7 or 8 digits
 * standing alone as a word (`for 71234567`). Shorter runs and runs inside a reference
 * (`TOP/2026/11/00010002`) or an amount stay readable.
 */
const NUMBERS_IN_TEXT =
  /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?<!\d)\d{4}(?:[ -]\d{4}){3,}(?!\d)|(?<!\d)\d{16,}(?!\d)|\+?(?<!\d)\d{9,15}(?!\d)|(?<![^\s:(=,;*])\+?\d{7,8}(?![\w/-]|[.,]\d)/gi;

/**
 * The one masking of phone numbers and tokens inside free text (an error message, an id that
 * embeds a number, a provider's reply that echoes our message), and of credentials inside URLs:
 * the key-based masking cannot see them. Used by the logger and by the SMS drivers.
 */
export function maskNumbersInText(text: string): string {
  return text.replace(URL_CREDENTIALS, '$1[redacted]@').replace(NUMBERS_IN_TEXT, (found) => {
    if (UUID.test(found)) return found;
    const digits = found.replace(/\D/g, '');
    if (digits.length >= 16) return maskToken(found);
    return `${found.startsWith('+') ? '+' : ''}${maskMsisdn(digits)}`;
  });
}

/** Under a phone-number key: mask what looks like a number; leave words (`to: 'succeeded'`), dates and masked values alone. */
function maskPhoneField(value: string): string {
  return isNumberToMask(value) ? maskMsisdn(value) : maskNumbersInText(value);
}

/** Mask a value found under `key`; recurse into objects and arrays. Exported for tests. */
export function redact(key: string, value: unknown, depth = 0): unknown {
  if (value === null || value === undefined || depth > 6) return value;
  if (SECRET_KEYS.test(key)) return '[redacted]';
  if (typeof value === 'string') {
    if (TOKEN_KEYS.test(key)) return value.split('|').map(maskToken).join('|');
    if (MSISDN_KEYS.test(key)) return maskPhoneField(value);
    return maskNumbersInText(value);
  }
  if (Array.isArray(value)) return value.map((item) => redact(key, item, depth + 1));
  if (typeof value === 'object') {
    if (value instanceof Error) return { name: value.name, message: maskNumbersInText(value.message) };
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = redact(k, v, depth + 1);
    return out;
  }
  return value;
}

/**
 * Drops a line below its logger's level before any other format runs: winston applies formats
 * to every call and filters by level only in the transports, and masking walks the metadata.
 * The first format of every logger here (the sandboxes' too).
 */
export const levelGate = (of: () => Pick<winston.Logger, 'isLevelEnabled'>) =>
  winston.format((info) => (of().isLevelEnabled(info.level) ? info : false))();

/** Marks a line's fields as masked already by its writer (see {@link premasked}). */
const PREMASKED = Symbol('premasked');

/**
 * Fields a hot path has masked itself (a masked number, a state name, a duration): the logger
 * skips its generic masking walk over them, which costs more than the rest of the line. Only
 * for fields whose values are known; anything free-form goes through the walk.
 */
export function premasked<T extends Record<string, unknown>>(fields: T): T {
  return { ...fields, [PREMASKED]: true };
}

const maskFormat = winston.format((info) => {
  const masked = (info as Record<symbol, unknown>)[PREMASKED] === true;
  for (const key of masked ? [] : Object.keys(info)) {
    if (key === 'level' || key === 'message' || key === 'timestamp') continue;
    (info as Record<string, unknown>)[key] = redact(key, info[key]);
  }
  // A request id may come from outside (X-Request-Id, an aggregator's session id) and carry a
  // phone number or a token: masked like any free text.
  const requestId = currentRequestId();
  if (requestId && info.requestId === undefined) info.requestId = maskNumbersInText(requestId);
  return info;
});

/** Where winston keeps a line's finished text (triple-beam's MESSAGE). */
const MESSAGE = Symbol.for('message');

const genericJson = winston.format.json();

/**
 * The line as JSON. A premasked line holds only strings, numbers, booleans and null, so the plain
 * `JSON.stringify` does; logform's `json()` (key sorting, cycles, BigInt, and a stringifier
 * configured afresh for every line) is for everything else.
 */
const jsonLine = winston.format((info) => {
  if ((info as Record<symbol, unknown>)[PREMASKED] !== true) return genericJson.transform(info, {});
  (info as Record<symbol, unknown>)[MESSAGE] = JSON.stringify(info);
  return info;
});

/** Fields a person reading `pretty` lines never needs on every line (the time and level lead it). */
const PRETTY_SKIPPED = new Set(['level', 'message', 'timestamp', 'component', 'requestId']);
/** A line longer than this, or a field longer than the second, puts each field on a line of its own. */
const PRETTY_INLINE_WIDTH = 160;
const PRETTY_INLINE_FIELD = 48;
const LEVEL_COLOURS: Record<string, string> = { error: '31', warn: '33', info: '32', debug: '90' };

function prettyValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (value && typeof value === 'object' && 'message' in value && 'name' in value)
    return `${String((value as { name: unknown }).name)}: ${String((value as { message: unknown }).message)}`;
  return JSON.stringify(value) ?? String(value);
}

/** `HH:MM:SS.mmm`, local time, from the line's ISO timestamp. */
function timeOfDay(iso: unknown): string {
  const at = typeof iso === 'string' ? new Date(iso) : new Date();
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}.${String(at.getMilliseconds()).padStart(3, '0')}`;
}

/**
 * The line for a person (`LOG_FORMAT=pretty`): time, level, component, message, then the fields,
 * `key=value` on the line or, for a long one such as "gateway started", one a line. The fields
 * are the masked ones JSON would carry; only the layout differs. The level is coloured on a terminal.
 */
export function prettyText(info: Record<string, unknown>, colour = false): string {
  const level = String(info.level);
  const shownLevel = level.padEnd(5);
  const head = [
    timeOfDay(info.timestamp),
    colour && LEVEL_COLOURS[level] ? `\u001b[${LEVEL_COLOURS[level]}m${shownLevel}\u001b[0m` : shownLevel,
    info.component ? `[${String(info.component)}]` : undefined,
    String(info.message),
    info.requestId ? `(${String(info.requestId)})` : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(' ');
  const fields = Object.keys(info)
    .filter((key) => !PRETTY_SKIPPED.has(key) && info[key] !== undefined)
    .map((key) => [key, prettyValue(info[key])] as const)
    // An echo of the request id (a provider's) says nothing the head does not.
    .filter(([, value]) => value !== info.requestId);
  const inline = fields
    .map(([key, value]) => ` ${key}=${/\s/.test(value) ? JSON.stringify(value) : value}`)
    .join('');
  const short = fields.every(([, value]) => value.length <= PRETTY_INLINE_FIELD);
  if (short && head.length + inline.length <= PRETTY_INLINE_WIDTH) return head + inline;
  return [head, ...fields.map(([key, value]) => `    ${key}: ${value}`)].join('\n');
}

const prettyLine = winston.format((info) => {
  (info as Record<symbol, unknown>)[MESSAGE] = prettyText(info, process.stdout.isTTY === true);
  return info;
});

/**
 * The lines of one turn of the event loop go to stdout in one write. A write to a file or a
 * pipe is a system call, synchronous on POSIX, and one per line cost a loaded gateway about 4%
 * of its CPU (several hops finish in the same turn). Lines still pending when the process exits
 * (`process.exit`, an uncaught exception, the end of the loop) are written by the `exit`
 * handler, which runs synchronously. winston's Console transport would also schedule a `logged`
 * event per line, which nothing here listens to; `silent` and levels work as in any transport.
 */
class StdoutTransport extends TransportStream {
  private pending = '';
  private scheduled = false;

  constructor() {
    super();
    process.once('exit', this.flush);
  }

  override log(info: Record<symbol, unknown>, next: () => void): void {
    this.pending += `${info[MESSAGE] as string}\n`;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
    next();
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const lines = this.pending;
    this.pending = '';
    if (lines !== '') process.stdout.write(lines);
  };
}

/** Log levels, most severe first (winston's npm levels): the values `LOG_LEVEL` accepts. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `json`: one object a line, for log collectors; `pretty`: readable lines for a person. */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The same masking for either format: only the last step, the line's layout, differs. */
function lineFormat(format: LogFormat): winston.Logform.Format {
  return winston.format.combine(
    levelGate(() => logger),
    maskFormat(),
    winston.format.timestamp(),
    format === 'pretty' ? prettyLine() : jsonLine(),
  );
}

/**
 * The one logger. Child loggers add a `component` field. `info` and JSON until the process sets
 * the configured level and format with `setLogLevel` and `setLogFormat` (the logger is created at
 * import, before config is read).
 */
export const logger = winston.createLogger({
  level: 'info',
  format: lineFormat('json'),
  transports: [new StdoutTransport()],
});

/**
 * Sets the layout of every log line: `pretty-on-a-terminal` is pretty while stdout is a terminal
 * (a person watching), JSON when it is piped or redirected (a collector, a file).
 */
export function setLogFormat(format: LogFormat | 'pretty-on-a-terminal'): void {
  const chosen = format === 'pretty-on-a-terminal' ? (process.stdout.isTTY ? 'pretty' : 'json') : format;
  logger.format = lineFormat(chosen);
}

export function componentLogger(component: string): winston.Logger {
  return logger.child({ component });
}

/** Sets the level of every log line from the configuration; each process calls it once at start. */
export function setLogLevel(level: LogLevel): void {
  logger.level = level;
}
