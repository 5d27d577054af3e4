import type { ErrorRequestHandler } from 'express';
import { componentLogger } from '../observability/logger';

const log = componentLogger('admin');

/** What an admin route answers for one of its domain's errors: the status and the JSON body. */
export interface ErrorAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * The error handler of an admin router: its domain's refusals answered as `answerOf` says (nothing
 * was changed), a body that is not JSON a 400; anything else logged as `<what> request failed`
 * and passed on (Express answers 500).
 */
export function adminErrors(
  what: string,
  answerOf: (err: Error) => ErrorAnswer | undefined,
): ErrorRequestHandler {
  return (err: Error, _req, res, next) => {
    const answer =
      answerOf(err) ??
      ((err as { type?: string }).type === 'entity.parse.failed'
        ? { status: 400, body: { error: 'bad_request', message: 'request body must be JSON' } }
        : undefined);
    if (answer) {
      res.status(answer.status).json(answer.body);
      return;
    }
    log.error(`${what} request failed`, { error: err });
    next(err);
  };
}
