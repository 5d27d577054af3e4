import type { Locales } from '../../i18n';
import type { Screen } from './dialogue';
import type { UssdReply } from './hop';
import type { PureHop } from './hop-protocol';
import { renderDialogueScreen } from './render';
import type { ResumeCandidate, SessionRecord } from './store/types';
import type { Turn } from './turn';

/** What a hop came to, for its log line. */
export type Outcome =
  'new' | 'event' | 'page' | 'replay' | 'busy' | 'refused' | 'ended' | 'resume' | 'timeout' | 'failure';

/** What one hop did. */
export interface HopOutcome {
  reply: UssdReply;
  outcome: Outcome;
  state?: unknown;
  /** The machine changed the language: the caller's preference to remember once the hop is saved. */
  language?: string;
}

/** The part of a record a hop decides; the rest comes from the turn (identity, request, timestamps). */
export type RecordBody = Partial<
  Pick<SessionRecord, 'page' | 'pages' | 'optionIds' | 'status' | 'shared'> & { resume: ResumeCandidate }
> &
  Pick<SessionRecord, 'snapshot' | 'language'>;

/** What an answer is rendered and stored with. */
export interface AnswerSettings {
  locales: Locales;
  /** The screen limit when the hop names none. */
  screenLimit: number;
  /** TTL of a final record (replay only) and of an active one. */
  finalTtlS: number;
  activeTtlS: number;
}

/**
 * The one answer step: `screen` rendered (at `page`) in `language`, and the record that stores
 * it for the next hop (of machine version `version`). Final records keep only what replay needs.
 */
export function answerOf(
  settings: AnswerSettings,
  turn: Turn,
  version: string,
  body: RecordBody,
  screen: Screen,
  outcome: Outcome,
  page = 1,
): PureHop<HopOutcome> {
  const { language } = body;
  const rendered = renderDialogueScreen(
    settings.locales,
    screen,
    language,
    turn.hop.screenLimit ?? settings.screenLimit,
    page,
  );
  const final = screen.final === true || body.snapshot === null;
  const choice = !final && !screen.expectsText && rendered.optionIds.length > 0;
  const reply: UssdReply = { text: rendered.text, end: final, ...(choice && { choice }) };
  const record: SessionRecord = {
    machineVersion: version,
    snapshot: body.snapshot,
    msisdn: turn.hop.msisdn,
    serviceCode: turn.record?.serviceCode ?? turn.hop.serviceCode,
    lastText: turn.storedText,
    lastRequestKey: turn.requestKey,
    ...(turn.secretRanges ? { secretRanges: turn.secretRanges } : {}),
    ...(screen.secret && !final ? { secretInput: true } : {}),
    lastReply: reply,
    page: final ? 1 : rendered.page,
    pages: final ? 1 : rendered.pages,
    optionIds: final ? [] : rendered.optionIds,
    language,
    status: final ? 'final' : 'active',
    hops: turn.hopNo,
    createdAt: turn.record?.createdAt ?? Date.now(),
    updatedAt: Date.now(),
    ...(body.resume ? { resume: body.resume } : {}),
    ...(body.shared && body.snapshot !== null ? { shared: body.shared } : {}),
  };
  return { record, ttlS: final ? settings.finalTtlS : settings.activeTtlS, answer: { reply, outcome } };
}
