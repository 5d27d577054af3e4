import type { IncomingHttpHeaders } from 'node:http';
import type { UssdHop, UssdReply, UssdSessionEnd } from '../../session/hop';

/**
 * The wire side of USSD traffic. Adapters translate one aggregator's wire format to and from
 * the session's hop contract (`src/session/hop.ts`), which is all the hop engine ever sees.
 */
export type { UssdHop, UssdReply, UssdSessionEnd };

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
