import type { DialogueEvent } from './dialogue';

/**
 * The new input of a hop. Cumulative text (Africa's Talking: every input so far joined by `*`)
 * is compared with the text stored at the previous hop and the previous text is stripped as
 * a prefix, so an input that itself contains `*` survives. Fallback, when the text does not
 * extend the previous one (the aggregator lost or rewrote history): the part after the last `*`.
 */
export function deriveInput(
  previous: string,
  text: { kind: 'cumulative' | 'latest'; value: string },
): string {
  if (text.kind === 'latest') return text.value.trim();
  const value = text.value;
  if (previous === '') return value.trim();
  if (value.startsWith(`${previous}*`)) return value.slice(previous.length + 1).trim();
  const star = value.lastIndexOf('*');
  return (star >= 0 ? value.slice(star + 1) : value).trim();
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
