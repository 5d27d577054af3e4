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
