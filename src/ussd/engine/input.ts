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

/** A run of 4 to 6 digits, not part of a longer number: the shape of an agent's PIN. */
const PIN_SHAPED = /(?<!\d)\d{4,6}(?!\d)/g;

/** Whether one input (a shortcut's group) has the shape of an agent's PIN: 4 to 6 digits. */
export function mayBePin(input: string): boolean {
  return /^\d{4,6}$/.test(input);
}

/**
 * The ranges of `text` an agent's PIN could be: every run of 4 to 6 digits (a meter, a phone
 * number, longer, is not). On a hop without a record the engine cannot tell them from an amount:
 * it does not know yet whether the caller is an agent, and a cumulative text whose dialogue Redis
 * lost (`1*<meter>*<PIN>`, an agent's shortcut answered on its PIN prompt) looks like a shortcut
 * (`1*<meter>*<amount>`). What it stores of such a text has them masked.
 */
export function pinShapedRanges(text: string): [number, number][] {
  return [...text.matchAll(PIN_SHAPED)].map((run) => [run.index, run.index + run[0].length]);
}

/** An option number: 1 to 999, no leading zero. */
const OPTION_NUMBER = /^[1-9]\d{0,2}$/;

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
  if (OPTION_NUMBER.test(input)) {
    const index = Number(input) - 1;
    if (index < shown.optionIds.length)
      return { kind: 'event', event: { type: 'CHOOSE', optionId: shown.optionIds[index] } };
  }
  return { kind: 'event', event: { type: 'TEXT', text: input } };
}

/**
 * Whether a hop's dialled string may be a one-dial shortcut: one to three `*`-separated groups of
 * digits (`<product>*<identifier>*<amount>`), the product an option number of the menu. A
 * cumulative text of more inputs than that is a dialogue whose record is gone, never read as a
 * shortcut (its last input may have been a Buy); so is one whose first input is no option number.
 * An agent's dialogue starts with its PIN (4 to 6 digits): read as a shortcut, its lost dialogue
 * would start again at the PIN prompt mid-sale, the next input (a meter, an amount) checked as a
 * wrong PIN, and the PIN stored in the clear with the text.
 */
export function mayBeShortcut(dialled: string | undefined): dialled is string {
  if (dialled === undefined || !/^\d{1,20}(\*\d{1,20}){0,2}$/.test(dialled)) return false;
  return OPTION_NUMBER.test(dialled.split('*', 1)[0]);
}
