import type { DialogueEvent } from './dialogue';

/**
 * Where the new input of a hop starts in its text. Cumulative text (Africa's Talking: every
 * input so far joined by `*`) is compared with the text stored at the previous hop and the
 * previous text is stripped as a prefix, so an input that itself contains `*` survives.
 * Fallback, when the text does not extend the previous one (the aggregator lost or rewrote
 * history): the part after the last `*`.
 */
export function inputStart(previous: string, text: { kind: 'cumulative' | 'latest'; value: string }): number {
  const value = text.value;
  if (text.kind === 'latest' || previous === '') return 0;
  if (value.startsWith(`${previous}*`)) return previous.length + 1;
  return value.lastIndexOf('*') + 1;
}

/** The new input of a hop (see {@link inputStart}), trimmed. */
export function deriveInput(
  previous: string,
  text: { kind: 'cumulative' | 'latest'; value: string },
): string {
  return text.value.slice(inputStart(previous, text)).trim();
}

/** A range `[start, end)` of a hop's text that held a secret input (an agent's PIN). */
export type SecretRange = readonly [number, number];

/**
 * The text as the session stores it: every character of a secret range replaced by `#`. The
 * length is kept, so positions in the masked text are positions in the real one, and a later
 * cumulative text, masked with the same ranges, still extends the stored one.
 */
export function maskText(text: string, ranges: readonly SecretRange[] | undefined): string {
  let out = text;
  for (const [start, end] of ranges ?? []) {
    const stop = Math.min(end, out.length);
    if (start < stop) out = `${out.slice(0, start)}${'#'.repeat(stop - start)}${out.slice(stop)}`;
  }
  return out;
}

/** What an input does on the screen that was shown. */
export type HopAction =
  /** Show another page of the same screen; the machine is not involved. */
  { kind: 'page'; page: number } | { kind: 'event'; event: DialogueEvent };

/**
 * Maps an input to one action: `00` home, `98` next page (when there is one), `0` previous page
 * (on page 2+) else back, an option number (global numbering) → CHOOSE, anything else → TEXT.
 */
export function readInput(
  input: string,
  shown: { page: number; pages: number; optionIds: string[] },
): HopAction {
  if (input === '00') return { kind: 'event', event: { type: 'HOME' } };
  if (input === '98' && shown.page < shown.pages) return { kind: 'page', page: shown.page + 1 };
  if (input === '0') {
    if (shown.page > 1) return { kind: 'page', page: shown.page - 1 };
    return { kind: 'event', event: { type: 'BACK' } };
  }
  if (/^[1-9]\d{0,2}$/.test(input)) {
    const index = Number(input) - 1;
    if (index < shown.optionIds.length)
      return { kind: 'event', event: { type: 'CHOOSE', optionId: shown.optionIds[index] } };
  }
  return { kind: 'event', event: { type: 'TEXT', text: input } };
}
