import { SqlAuditTrail } from '../purchases/care/audit-sql';
import { ALL_LANGUAGES, NoticeBoard, NoticeInputError, type NoticeText } from '../subscribers/notice';
import { EXIT, misused, parseFlags, runCommand, switches, valueFlags, type CliIo } from './kit';

const USAGE = `usage: npm run cli -- notice <command> [flags]
  (needs DATABASE_URL and DATABASE_SCHEMA as the gateway has them; running gateways show a change
  within 10 s; or use GET/PUT/DELETE /admin/notice)
  set "TEXT" --until T       the first line of the menu in every language until T (at most 80
                             characters); T an ISO time with its zone (2026-05-01T18:00+02:00) or a
                             duration (90m, 2h, 1d, at most 30 days)
  set --en "TEXT" --tn "TEXT" --until T   a text per language
  show                       the notice and until when
  clear                      take it down
setting and clearing are written to the audit trail   --json`;

/** `npm run cli -- notice set|show|clear`: the operator's notice on the menu. */
export async function noticeCli(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(io, USAGE, argv, { ...valueFlags('until', 'en', 'tn'), ...switches('json') });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [command, text, ...extra] = positionals;
  const perLanguage = values.en !== undefined || values.tn !== undefined;
  if (
    !['set', 'show', 'clear'].includes(command ?? '') ||
    extra.length > 0 ||
    (command !== 'set' && text !== undefined) ||
    (command === 'set' && (text === undefined) === !perLanguage)
  )
    return misused(io, USAGE);
  return runCommand(io, 'notice', argv, [NoticeInputError], async (scope) => {
    const config = scope.config();
    const records = await scope.records(config, 'use GET/PUT/DELETE /admin/notice on the gateway');
    const board = new NoticeBoard({ db: records, audit: new SqlAuditTrail(records) });
    const print = (notice: NoticeText[]) => {
      if (values.json) io.stdout(JSON.stringify(notice, null, 2));
      else if (notice.length === 0) io.stdout('no notice');
      else
        for (const t of notice) io.stdout(`[${t.language}] until ${t.until}: ${t.text}  (set by ${t.setBy})`);
    };
    if (command === 'show') print(await board.show());
    else if (command === 'clear')
      io.stdout((await board.clear(scope.actor)) ? 'notice cleared' : 'there was no notice');
    else {
      const texts = perLanguage
        ? Object.fromEntries(
            Object.entries({ en: values.en, tn: values.tn }).filter(([, v]) => v !== undefined),
          )
        : { [ALL_LANGUAGES]: text };
      print(await board.set(texts, values.until, scope.actor));
    }
    return EXIT.ok;
  });
}
