import type { UssdAdapter, UssdHop, UssdHttpRequest, UssdReply, UssdSessionEnd } from './types';

/**
 * The shape of every adapter's table of wire cases (`<name>/cases.ts`), run by one shared runner
 * (`wire-cases.test.ts`) and by the end-to-end table over all aggregators: parse cases (request →
 * hop, end or 400 message), reply cases (reply → wire response), and a dialer that speaks the
 * format the way the aggregator does, so a whole dialogue can be played over HTTP.
 */

/** A request as a case writes it; the runner fills in the defaults. */
export type WireRequest = Partial<UssdHttpRequest> & { path?: string };

/** What a parse case shows; every table covers each (`end` unless the format has no end signal). */
export const CASE_KINDS = ['new', 'continuation', 'back', 'end', 'redelivery', 'malformed'] as const;
export type CaseKind = (typeof CASE_KINDS)[number];

export interface ParseCase {
  name: string;
  kind: CaseKind;
  request: WireRequest;
  /** The hop (a subset), the session end, or the 400 message (a RegExp to match). */
  expect: { hop: Partial<UssdHop> } | { end: Partial<UssdSessionEnd> } | { error: string | RegExp };
}

export interface ReplyCase {
  name: string;
  reply: UssdReply;
  /** The hop the reply answers, for formats that echo it. */
  hop?: WireRequest;
  expect: { status?: number; contentType?: string; headers?: Record<string, string>; body: unknown };
}

/** One HTTP request of a dialogue, relative to the gateway. */
export interface DialRequest {
  method: 'GET' | 'POST' | 'PUT';
  /** After `/ussd/<name>`, with its query string when it has one. */
  path: string;
  /** Form fields (`form: true`) or a JSON body. */
  body?: Record<string, unknown>;
  form?: boolean;
}

/** Speaks one aggregator's format: the requests of a dialogue, and the screen out of a response. */
export interface Dialer {
  start(session: DialSession): DialRequest;
  /**
   * The first hop of a dial with `extension` after the service code (`*384*1#`: `1`), as the
   * format carries it: for formats that pass a one-dial shortcut (src/ussd/README.md).
   */
  dialExtension?(session: DialSession, extension: string): DialRequest;
  /** The next hop with `input` (the dialer keeps what the format needs: history, sequence). */
  next(session: DialSession, input: string): DialRequest;
  /** The subscriber hangs up (or the session times out): the format's end signal, if any. */
  hangUp?(session: DialSession): DialRequest;
  /** The screen and whether it ends the dialogue, from the response's body and headers. */
  read(body: string, headers: Record<string, string | string[] | undefined>): { text: string; end: boolean };
}

/** What a dialer remembers of one dialogue. */
export interface DialSession {
  id: string;
  msisdn: string;
  serviceCode: string;
  inputs: string[];
  hops: number;
}

export interface AdapterCases {
  adapter: UssdAdapter;
  /** The HTTP status a refused request is answered with (default 400; Infobip: 200, the code in the body). */
  refusedWith?: number;
  /** Why the table has no `end` case: the format sends no end signal (the dialer has no hangUp). */
  noEndSignal?: string;
  parse: ParseCase[];
  reply: ReplyCase[];
  dialer: Dialer;
}

/** A wire request with the defaults a case leaves out. */
export function wireRequest(r: WireRequest): UssdHttpRequest {
  return { method: 'POST', body: {}, query: {}, headers: {}, params: {}, ...r };
}

export function newDialSession(id: string, msisdn: string, serviceCode = '*384*1#'): DialSession {
  return { id, msisdn, serviceCode, inputs: [], hops: 0 };
}

/** Why a format's table has no `end` case, for the formats that send no end notification. */
export const NO_END_NOTIFICATION =
  'the format sends no end notification: a dropped dialogue is offered for resume at the next dial';

/** A hop POSTed to the aggregator's one URL: a JSON body, or form fields with `form`. */
export function postHop(body: Record<string, unknown>, form = false): DialRequest {
  return form ? { method: 'POST', path: '', form: true, body } : { method: 'POST', path: '', body };
}

/** Reads a `CON …` / `END …` text reply (Africa's Talking, Safaricom). */
export function readConEnd(body: string): { text: string; end: boolean } {
  return { text: body.slice(4), end: body.startsWith('END ') };
}

/**
 * The two reply cases every format shows alike: `Menu` continuing and `Bye` ending, answering
 * `hop` when the format echoes it; `expect` builds the wire answer from the text and end flag.
 */
export function continueAndEnd(
  expect: (text: string, end: boolean) => ReplyCase['expect'],
  hop?: WireRequest,
): ReplyCase[] {
  return [
    {
      name: 'continue',
      reply: { text: 'Menu', end: false },
      ...(hop && { hop }),
      expect: expect('Menu', false),
    },
    { name: 'end', reply: { text: 'Bye', end: true }, ...(hop && { hop }), expect: expect('Bye', true) },
  ];
}

/**
 * The continuation (`1`) and back (`0`) cases of a latest-input format: `request` carries the
 * input the way the format does.
 */
export function latestInputSteps(
  request: (input: string) => WireRequest,
  continuation = 'continuation (latest input)',
): ParseCase[] {
  return [
    {
      name: continuation,
      kind: 'continuation',
      request: request('1'),
      expect: { hop: { isNew: false, text: { kind: 'latest', value: '1' } } },
    },
    {
      name: 'back',
      kind: 'back',
      request: request('0'),
      expect: { hop: { text: { kind: 'latest', value: '0' } } },
    },
  ];
}

/** A session's start sent again is a new hop again (the engine, not the adapter, spots the repeat). */
export function redeliveredStart(request: WireRequest, sessionId: string, start = 'start'): ParseCase {
  return {
    name: `re-delivered ${start} is flagged new again`,
    kind: 'redelivery',
    request,
    expect: { hop: { sessionId, isNew: true } },
  };
}

/** A request without `field`: refused with a 400 that names it. */
export function missingField(field: string, request: WireRequest): ParseCase {
  return {
    name: `malformed: no ${field}`,
    kind: 'malformed',
    request,
    expect: { error: `missing field: ${field}` },
  };
}

/** Reads a JSON reply: the screen in `text`, the end when `end` holds `endsWhen`. */
export function readJson(text: string, end: string, endsWhen: unknown = true): Dialer['read'] {
  return (body) => {
    const reply = JSON.parse(body) as Record<string, unknown>;
    return { text: String(reply[text]), end: reply[end] === endsWhen };
  };
}

/** A session's first hop: flagged new, with the rest of `hop` as the format reads it. */
export function newSession(request: WireRequest, hop: Partial<UssdHop>, name = 'new session'): ParseCase {
  return { name, kind: 'new', request, expect: { hop: { isNew: true, ...hop } } };
}
