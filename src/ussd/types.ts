import type { IncomingHttpHeaders } from 'node:http';
import type { UssdHop, UssdReply, UssdSessionEnd } from './engine/hop';

/**
 * The wire side of USSD traffic. Adapters translate one aggregator's wire format to and from
 * the session's hop contract (`src/ussd/engine/hop.ts`), which is all the hop engine ever sees.
 */
export type { UssdHop, UssdReply, UssdSessionEnd };

/** A wire request as an adapter sees it (express's Request satisfies it). */
export interface UssdHttpRequest {
  method: string;
  body: unknown;
  query: unknown;
  headers: IncomingHttpHeaders;
  /** Path parameters of the adapter's route (`:id`), when it has any. */
  params?: Record<string, string>;
  /** The adapter's route path this request came in on (`/session/:id/start`). */
  route?: string;
}

/** One route an adapter serves, under `/ussd/<name>`: hops, end notifications or status asks. */
export interface UssdRoute {
  method: 'GET' | 'POST' | 'PUT';
  /** After `/ussd/<name>` (`''`, `/events`, `/session/:id/start`). */
  path: string;
  kind: 'hop' | 'end' | 'status';
}

/** A wire response as an adapter builds it; the router writes it. */
export interface UssdHttpResponse {
  status: number;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

/** A parse failure: the router answers 400 (or `status`) with this message and changes nothing. */
export interface UssdParseError {
  error: string;
  /** 401 when the request's own credentials are wrong (Comviva `userid`/`password`). */
  status?: 400 | 401;
}

/**
 * One aggregator's wire format. Adding an aggregator is one file implementing this.
 * Adapters only translate: no Redis, no machine, no purchase call, no business rule.
 */
export interface UssdAdapter {
  /** URL segment: the router mounts `POST /ussd/<name>` (and `/ussd/<name>/events`). */
  readonly name: string;
  /**
   * The aggregator's documented characters per screen (Nalo: 120), its default when
   * `USSD_SCREEN_LIMIT_<NAME>` is unset (never above `USSD_SCREEN_LIMIT`).
   */
  readonly screenLimit?: number;
  /** The routes, when not the default `POST ''` (hops) and `POST /events` (ends, with parseEnd). */
  readonly routes?: readonly UssdRoute[];
  /**
   * Every route refuses a request without the aggregator's own credentials (Comviva's
   * userid/password): protected even without a callback secret or an allow-list.
   */
  readonly checksCredentials?: boolean;
  /**
   * Wire request → hop, or a message naming what is wrong (→ 400). Aggregators that end a
   * session on the hop URL itself (Hubtel `Release`, Cellulant `ABO`) get a session end back.
   */
  parseHop(req: UssdHttpRequest): UssdHop | UssdSessionEnd | UssdParseError;
  /** Reply → wire response (status, content type, body, extra headers); `hop` for formats that echo it. */
  formatReply(reply: UssdReply, hop?: UssdHop): UssdHttpResponse;
  /** End-of-session notification → normalised end; absent when the aggregator sends none. */
  parseEnd?(req: UssdHttpRequest): UssdSessionEnd | UssdParseError;
  /** The answer to an accepted end notification (default: 200 `OK` text/plain). */
  formatEndAck?(): UssdHttpResponse;
  /** A status ask (Infobip `GET session/{id}/status`) → the session it is about. */
  parseStatus?(req: UssdHttpRequest): { sessionId: string } | UssdParseError;
  formatStatus?(active: boolean): UssdHttpResponse;
  /** A refused request in the format's own error shape (default: text/plain, the message). */
  formatError?(status: number, message: string): UssdHttpResponse;
}

/** Whether a parsed hop request is in fact the end of the session. */
export function isSessionEnd(value: UssdHop | UssdSessionEnd): value is UssdSessionEnd {
  return !('text' in value);
}

/** Type guard for parse results. */
export function isParseError(value: object): value is UssdParseError {
  return typeof (value as UssdParseError).error === 'string';
}
