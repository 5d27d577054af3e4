import { encodingOf, transliterate } from '../i18n';
import { languageOf } from '../i18n/catalogue';
import { componentLogger } from '../observability/logger';
import type { AuditTrail } from '../purchases/care/audit';
import type { Database } from '../records/database';

const log = componentLogger('notice');

/** The row of a text for every language without one of its own. */
export const ALL_LANGUAGES = '*';

/** The longest notice: it is the first line of a menu that must still fit one screen. */
export const MAX_NOTICE = 80;

/** The longest a notice may last. */
export const MAX_NOTICE_MS = 30 * 24 * 3600_000;

/** How often an instance reads the notice again (another instance may have set it). */
export const NOTICE_REFRESH_MS = 10_000;

/** One language's text of the operator's notice. */
export interface NoticeText {
  /** `en`, `tn`, or `*` (every language without a text of its own). */
  language: string;
  text: string;
  /** ISO: shown until then. */
  until: string;
  setBy: string;
  setAt: string;
}

/** The operator's input is unusable (answer 400, exit 2); nothing was changed. */
export class NoticeInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoticeInputError';
  }
}

type Row = { language: string; text: string; until: Date; set_by: string; set_at: Date };

const textOf = (row: Row): NoticeText => ({
  language: row.language,
  text: row.text,
  until: new Date(row.until).toISOString(),
  setBy: row.set_by,
  setAt: new Date(row.set_at).toISOString(),
});

/**
 * `--until`: an ISO date-time with its zone (`2026-05-01T18:00+02:00`, `…Z`) or a duration from
 * now (`90m`, `2h`, `1d`); in the future, at most 30 days away.
 */
export function parseUntil(raw: unknown, now: Date): Date {
  if (typeof raw !== 'string' || raw.trim() === '')
    throw new NoticeInputError('until is required: an ISO time with its zone, or a duration (90m, 2h, 1d)');
  const value = raw.trim();
  const duration = /^(\d{1,4})([mhd])$/.exec(value);
  let until: Date;
  if (duration) {
    const unit = { m: 60_000, h: 3600_000, d: 86_400_000 }[duration[2] as 'm' | 'h' | 'd'];
    until = new Date(now.getTime() + Number(duration[1]) * unit);
  } else if (/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/.test(value)) {
    until = new Date(value);
  } else {
    throw new NoticeInputError(
      `until ${JSON.stringify(value)}: give an ISO time with its zone (2026-05-01T18:00+02:00) or a duration (90m, 2h, 1d)`,
    );
  }
  if (Number.isNaN(until.getTime()))
    throw new NoticeInputError(`until ${JSON.stringify(value)} is not a time`);
  if (until.getTime() <= now.getTime()) throw new NoticeInputError('until must be in the future');
  if (until.getTime() - now.getTime() > MAX_NOTICE_MS)
    throw new NoticeInputError('until must be at most 30 days away');
  return until;
}

/** `{ "*": text }` or `{ en, tn, … }`, each checked: 1-80 characters, GSM-7 once transliterated. */
export function checkTexts(texts: unknown): Record<string, string> {
  if (typeof texts !== 'object' || texts === null || Object.keys(texts).length === 0)
    throw new NoticeInputError('give the notice text (one for every language, or one per language)');
  const checked: Record<string, string> = {};
  for (const [language, raw] of Object.entries(texts as Record<string, unknown>)) {
    if (language !== ALL_LANGUAGES && !/^[a-z]{2,3}$/.test(language))
      throw new NoticeInputError(`language ${JSON.stringify(language)}: a code such as en or tn`);
    if (typeof raw !== 'string' || raw.trim() === '' || raw.trim().length > MAX_NOTICE)
      throw new NoticeInputError(`the notice text must be 1 to ${MAX_NOTICE} characters`);
    const text = transliterate(raw.trim().replace(/\s+/g, ' '));
    if (encodingOf(text) !== 'GSM-7')
      throw new NoticeInputError('the notice text has characters a USSD screen cannot show');
    checked[language] = text;
  }
  return checked;
}

export interface NoticeBoardOptions {
  db: Database;
  /** Where setting and clearing are written (who, when, what). */
  audit: Pick<AuditTrail, 'record'>;
  refreshMs?: number;
  clock?: () => Date;
}

/**
 * The operator's notice ("Tokens are slow today; they may take up to an hour"), the first line of
 * the menu in each language while it lasts (`operator_notices`, migration 0008). The hop path asks
 * `currentNotice(language)`, which answers from this instance's copy and never waits for the
 * database: the copy is read at `start()` and every 10 s after (another instance may have set it),
 * and at once here when this instance sets or clears it; an expired notice is never shown.
 */
export class NoticeBoard {
  private texts: NoticeText[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly clock: () => Date;

  constructor(private readonly options: NoticeBoardOptions) {
    this.clock = options.clock ?? (() => new Date());
  }

  /** Read the notice now, then every `refreshMs`; a failed read keeps the copy (logged). */
  async start(): Promise<void> {
    await this.refresh();
    this.timer ??= setInterval(() => {
      this.refresh().catch((error: unknown) => log.warn('notice not read again', { error }));
    }, this.options.refreshMs ?? NOTICE_REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Read the notice into this instance's copy. */
  async refresh(): Promise<void> {
    this.texts = await this.show();
  }

  /**
   * The notice line for a caller in `language` (`tn`, `tn-BW`): its own text, else the one for
   * every language; null when there is none or it has ended. No database call.
   */
  currentNotice(language: string): string | null {
    const now = this.clock().getTime();
    const lang = languageOf(language);
    const live = this.texts.filter((t) => Date.parse(t.until) > now);
    return (
      live.find((t) => t.language === lang)?.text ??
      live.find((t) => t.language === ALL_LANGUAGES)?.text ??
      null
    );
  }

  /** The notice as stored, unexpired texts only. */
  async show(): Promise<NoticeText[]> {
    const result = await this.options.db.query<Row>(
      'SELECT language, text, until, set_by, set_at FROM operator_notices WHERE until > $1 ORDER BY language',
      [this.clock().toISOString()],
    );
    return result.rows.map(textOf);
  }

  /**
   * Replace the notice: `texts` is `{ "*": text }` or a text per language, shown until `until`
   * (see {@link parseUntil}). Audited (`notice_set`).
   */
  async set(texts: unknown, until: unknown, actor: string): Promise<NoticeText[]> {
    const checked = checkTexts(texts);
    const now = this.clock();
    const end = parseUntil(until, now);
    await this.options.db.transaction(async (tx) => {
      await tx.query('DELETE FROM operator_notices');
      for (const [language, text] of Object.entries(checked))
        await tx.query(
          'INSERT INTO operator_notices (language, text, until, set_by, set_at) VALUES ($1, $2, $3, $4, $5)',
          [language, text, end.toISOString(), actor, now.toISOString()],
        );
    });
    await this.options.audit.record({
      actor,
      action: 'notice_set',
      detail: `until ${end.toISOString()}: ${Object.entries(checked)
        .map(([language, text]) => `[${language}] ${text}`)
        .join(' ')}`,
    });
    log.warn('operator notice set', { actor, until: end.toISOString(), languages: Object.keys(checked) });
    await this.refresh();
    return this.texts;
  }

  /** Take the notice down; false when there was none. Audited (`notice_clear`). */
  async clear(actor: string): Promise<boolean> {
    const removed = await this.options.db.query('DELETE FROM operator_notices');
    await this.options.audit.record({ actor, action: 'notice_clear' });
    log.warn('operator notice cleared', { actor });
    await this.refresh();
    return removed.rowCount > 0;
  }
}
