import type { IncomingHttpHeaders } from 'node:http';

/**
 * The aggregator-neutral shapes of USSD traffic. Adapters translate one aggregator's wire
 * format to and from these; the hop engine (src/session/) only ever sees these.
 */

/** One screen request ("hop") from an aggregator, normalised. */
export interface UssdHop {
  /** Adapter name (`africastalking`); with `sessionId` it identifies the dialogue. */
  aggregator: string;
  sessionId: string;
  /** E.164 digits of the caller, no `+`. */
  msisdn: string;
  serviceCode: string;
  /**
   * What the subscriber typed. `cumulative`: every input so far joined by `*` (Africa's
   * Talking), the engine derives the new input by prefix. `latest`: only this hop's input.
   */
  text: { kind: 'cumulative' | 'latest'; value: string };
  /** The aggregator says this is the first hop of the dialogue (when it says so at all). */
  isNew: boolean;
  /** MCC+MNC or operator name, when sent. */
  network?: string;
  /**
   * Optional per-hop id from the aggregator (a sequence number). When set, a hop with the
   * same key as the last one is a re-delivery. Without it, cumulative text is the key.
   */
  requestKey?: string;
  /** The parsed wire request, for logs and debugging (never logged in full). */
  raw: unknown;
}

/** What the engine answers: the screen text and whether the dialogue ends. */
export interface UssdReply {
  text: string;
  end: boolean;
}

/** End-of-session notification from an aggregator, normalised. */
export interface UssdSessionEnd {
  aggregator: string;
  sessionId: string;
  /** E.164 digits, no `+`. */
  msisdn: string;
  /** `completed`: ended normally; `incomplete`: dropped or timed out mid-way; `failed`: aggregator-side failure. */
  status: 'completed' | 'incomplete' | 'failed';
}

/** A wire request as an adapter sees it (express's Request satisfies it). */
export interface UssdHttpRequest {
  method: string;
  body: unknown;
  query: unknown;
  headers: IncomingHttpHeaders;
}

/** A wire response as an adapter builds it; the router writes it. */
export interface UssdHttpResponse {
  status: number;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

/** A parse failure: the router answers 400 with this message and changes nothing. */
export interface UssdParseError {
  error: string;
}

/**
 * One aggregator's wire format. Adding an aggregator is one file implementing this.
 * Adapters only translate: no Redis, no machine, no purchase call, no business rule.
 */
export interface UssdAdapter {
  /** URL segment: the router mounts `POST /ussd/<name>` (and `/ussd/<name>/events`). */
  readonly name: string;
  /** Wire request → hop, or a message naming what is wrong (→ 400). */
  parseHop(req: UssdHttpRequest): UssdHop | UssdParseError;
  /** Reply → wire response (status, content type, body, extra headers). */
  formatReply(reply: UssdReply): UssdHttpResponse;
  /** End-of-session notification → normalised end; absent when the aggregator sends none. */
  parseEnd?(req: UssdHttpRequest): UssdSessionEnd | UssdParseError;
  /** The answer to an accepted end notification (default: 200 `OK` text/plain). */
  formatEndAck?(): UssdHttpResponse;
}

/** Type guard for parse results. */
export function isParseError(value: object): value is UssdParseError {
  return typeof (value as UssdParseError).error === 'string';
}
