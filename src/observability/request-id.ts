import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { withLogContext } from './logger';

const MAX_REQUEST_ID = 128;
const PRINTABLE = /^[\x21-\x7e]+$/;

/**
 * Every HTTP request gets a request id — the caller's `X-Request-Id` when it is printable and
 * at most 128 characters, else a fresh one — echoed in the response and carried by every log
 * line written while the request is handled. (USSD hops replace it with their own hop id.)
 */
export function requestIdMiddleware(): RequestHandler {
  return (req, res, next) => {
    const requestId = requestIdOf(req);
    res.setHeader('X-Request-Id', requestId);
    withLogContext({ requestId }, () => next());
  };
}

/** The request id of a request (see {@link requestIdMiddleware}), for routes served on `node:http`. */
export function requestIdOf(req: IncomingMessage): string {
  const offered = req.headers['x-request-id'];
  return typeof offered === 'string' && offered.length <= MAX_REQUEST_ID && PRINTABLE.test(offered)
    ? offered
    : `gw-${randomUUID()}`;
}
