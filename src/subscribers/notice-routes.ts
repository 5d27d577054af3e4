import express, { Router, type Response } from 'express';
import { adminErrors } from '../http/admin-errors';
import { requireBearer, type AdminCredential } from '../http/secrets';
import { ALL_LANGUAGES, NoticeInputError, type NoticeBoard } from './notice';

const actorOf = (res: Response): string =>
  typeof res.locals.operator === 'string' ? res.locals.operator : 'admin';

/**
 * `/admin/notice` (bearer ADMIN_TOKEN; setting and clearing are audited):
 *
 * - `GET`: the notice (its texts per language and until when), `[]` when there is none;
 * - `PUT {text, until}` (one text for every language) or `{texts: {en, tn}, until}`; `until` an
 *   ISO time with its zone or a duration (`2h`): replaces the notice;
 * - `DELETE`: takes it down.
 */
export function noticeRoutes(board: NoticeBoard, credentials: string | readonly AdminCredential[]): Router {
  const router = Router();
  const admin = Router();
  admin.use(requireBearer(credentials));
  admin.use(express.json({ limit: '4kb' }));

  admin.get('/', async (_req, res) => {
    res.json({ notice: await board.show() });
  });

  admin.put('/', async (req, res) => {
    const given = (req.body ?? {}) as { text?: unknown; texts?: unknown; until?: unknown };
    if ((given.text === undefined) === (given.texts === undefined))
      throw new NoticeInputError('give text (every language) or texts ({"en": …, "tn": …}), not both');
    const texts = given.text !== undefined ? { [ALL_LANGUAGES]: given.text } : given.texts;
    res.json({ notice: await board.set(texts, given.until, actorOf(res)) });
  });

  admin.delete('/', async (_req, res) => {
    const removed = await board.clear(actorOf(res));
    res.json({ cleared: removed });
  });

  admin.use(
    adminErrors('notice', (err) =>
      err instanceof NoticeInputError
        ? { status: 400, body: { error: 'invalid_request', message: err.message } }
        : undefined,
    ),
  );
  router.use('/admin/notice', admin);
  return router;
}
