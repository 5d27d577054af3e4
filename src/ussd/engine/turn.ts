import type { DialogueEvent } from './dialogue';
import type { UssdHop } from './hop';
import { inputStart, mayBeShortcut, maskText, pinShapedRanges, readInput, type HopAction } from './input';
import type { SessionRecord, SessionRef } from './store/types';

/**
 * What a hop is on a given record, decided from the two alone (no I/O): the request's identity
 * as the session stores it ({@link turnOf}) and the kind of hop ({@link planOf}). The engine
 * decides a hop once per record it runs on (engine.ts).
 */

/** One hop on one record. */
export interface Turn {
  hop: UssdHop;
  ref: SessionRef;
  /** The record the hop runs on (null: the session's first hop). */
  record: SessionRecord | null;
  hopNo: number;
  requestKey: string;
  /** The hop's text as stored: secret inputs masked. */
  storedText: string;
  secretRanges: [number, number][] | undefined;
}

/** What a hop is. */
export type Plan =
  /** No record: the session's first hop. */
  | { kind: 'first' }
  /**
   * No record, yet the aggregator's text holds inputs: earlier hops were answered and their
   * record is gone (Redis flushed or restarted empty, or the record expired).
   */
  | { kind: 'lost' }
  /** Answered without the machine: a re-delivery, another number's hop, a finished dialogue. */
  | { kind: 'asIs'; outcome: 'replay' | 'refused' | 'ended' }
  /** The caller answers the resume offer. */
  | { kind: 'resume'; action: HopAction }
  /** A snapshot this build cannot continue (of a version it does not know, or none): a fresh menu. */
  | { kind: 'unknown' }
  /** Another page of the screen shown; the machine is not involved. */
  | { kind: 'page'; page: number }
  /** An event for the machine; `samePage`: a choice that matched nothing redraws the page it was typed on. */
  | { kind: 'event'; event: DialogueEvent; samePage: boolean };

/** A person reads a screen before answering: the same input again this soon is the aggregator re-sending it. */
export const LATEST_REDELIVERY_MS = 3000;

export function turnOf(hop: UssdHop, ref: SessionRef, record: SessionRecord | null): Turn {
  const hopNo = (record?.hops ?? 0) + 1;
  const { storedText, secretRanges } = storedTextOf(hop, record);
  return {
    hop,
    ref,
    record,
    hopNo,
    requestKey: hop.requestKey ?? (hop.text.kind === 'cumulative' ? `c:${storedText}` : `n:${hopNo}`),
    storedText,
    secretRanges,
  };
}

/** What the hop of `turn` is; `knows` tells the machine versions this build can continue. */
export function planOf(turn: Turn, knows: (version: string) => boolean): Plan {
  const { hop, record } = turn;
  if (!record) return continuesDialogue(hop) ? { kind: 'lost' } : { kind: 'first' };
  const asIs = asIsOutcome(turn, record);
  if (asIs) return { kind: 'asIs', outcome: asIs };
  // Positions in the masked text are positions in the real one: the input is read unmasked.
  const start = inputStart(record.lastText, { kind: hop.text.kind, value: turn.storedText });
  const action = readInput(hop.text.value.slice(start).trim(), record);
  if (record.resume) return { kind: 'resume', action };
  if (!knows(record.machineVersion) || !record.snapshot) return { kind: 'unknown' };
  if (action.kind === 'page') return action;
  return { kind: 'event', event: action.event, samePage: action.event.type === 'TEXT' && record.page > 1 };
}

/**
 * Whether the hop carries inputs of earlier hops: a cumulative text is empty on a session's first
 * hop (the adapters strip the dialled code), unless it is a shortcut's dialled string. A latest-input hop cannot tell (some aggregators
 * never flag a new session), so it starts afresh.
 */
function continuesDialogue(hop: UssdHop): boolean {
  // The first hop of a one-dial shortcut (`*384*1*01234567890#`) carries what was dialled.
  if (mayBeShortcut(hop.dialled) && hop.text.value === hop.dialled) return false;
  return hop.text.kind === 'cumulative' && hop.text.value !== '';
}

/**
 * The hops answered without stepping the machine: a refusal (another number), a replay of a
 * re-delivered hop, or "ended" for a finished dialogue; null for a hop to step.
 */
function asIsOutcome(turn: Turn, record: SessionRecord): 'replay' | 'refused' | 'ended' | null {
  const { hop } = turn;
  if (record.msisdn !== hop.msisdn) return 'refused';
  if (record.lastRequestKey === turn.requestKey || hop.repeat) return 'replay';
  if (hop.text.kind === 'latest' && isLatestRedelivery(hop, record, turn.storedText)) return 'replay';
  // A late re-delivery of an earlier hop (its text is a prefix of the last one) must not rewind
  // the dialogue: the current screen is the best answer.
  const text = turn.storedText;
  if (
    hop.text.kind === 'cumulative' &&
    !hop.requestKey &&
    (text === '' || record.lastText.startsWith(`${text}*`))
  )
    return 'replay';
  // A finished dialogue is never resurrected by a late hop.
  if (record.status !== 'active') return 'ended';
  return null;
}

/**
 * Latest-input formats: a hop flagged new on a session that already answered is its start
 * re-sent; without a sequence (Arkesel, Nalo, Cellulant, Comviva), the same input as the last
 * hop within {@link LATEST_REDELIVERY_MS} of its answer is that hop re-sent. Either gets the
 * stored reply.
 */
function isLatestRedelivery(hop: UssdHop, record: SessionRecord, storedText: string): boolean {
  if (hop.isNew) return true;
  // With a sequence (Hubtel), only the key decides (checked before this).
  if (hop.requestKey) return false;
  // The session's first hop had no record: its text was stored with what a PIN could be masked.
  const same =
    record.lastText === storedText ||
    (record.hops === 1 && record.lastText === pinShapedMasked(hop.text.value));
  return same && Date.now() - record.updatedAt < LATEST_REDELIVERY_MS;
}

/** A text with every run an agent's PIN could be masked: what a hop without a record stores. */
function pinShapedMasked(text: string): string {
  return maskText(text, pinShapedRanges(text));
}

/**
 * The hop's text as the session may store it: the secret ranges known so far masked, and the
 * new input masked too when the screen shown asked for a secret (an agent's PIN). Without a
 * record, what a PIN could be is masked (`pinShapedRanges`): the hop's text (a shortcut's, or
 * a lost dialogue's latest input) may hold the PIN of an agent whose dialogue Redis lost.
 */
function storedTextOf(
  hop: UssdHop,
  record: SessionRecord | null,
): { storedText: string; secretRanges: [number, number][] | undefined } {
  const value = hop.text.value;
  if (!record) {
    const ranges = pinShapedRanges(value);
    const kept = hop.text.kind === 'cumulative' && ranges.length > 0;
    return { storedText: pinShapedMasked(value), secretRanges: kept ? ranges : undefined };
  }
  const known = hop.text.kind === 'cumulative' ? record.secretRanges : undefined;
  const masked = maskText(value, known);
  if (!record.secretInput) return { storedText: masked, secretRanges: known };
  const start = inputStart(record.lastText, { kind: hop.text.kind, value: masked });
  const ranges: [number, number][] = [...(known ?? []), [start, value.length]];
  return {
    storedText: maskText(value, ranges),
    secretRanges: hop.text.kind === 'cumulative' ? ranges : undefined,
  };
}
