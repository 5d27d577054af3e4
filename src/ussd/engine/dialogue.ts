/**
 * The contract between the hop engine (src/ussd/engine/) and a dialogue machine
 * (machines/ussd-session.machine.ts). The machine decides; the engine persists, renders and
 * answers. The machine publishes what to show: a `Screen` its context derives (the engine's
 * `screenOf` option; by default `context.screen`); the engine renders it in
 * the session's language, paginates options to the aggregator's limit and turns the
 * subscriber's reply into one event. The machine's only actors are services made with
 * `fromService`, and it asks for nothing else (no delayed events); a settled state calls none.
 */

import { fromPromise } from 'xstate';

/** Message parameters; a LocalText parameter is rendered in the same language first (a product's name). */
export type TextParams = { [name: string]: string | number | LocalText };

/** A localised text: a message key of locales/*.json with its parameters, or literal text (catalogue names). */
export type LocalText = { key: string; params?: TextParams } | { literal: string };

export interface ScreenOption {
  /** Stable id the machine receives back (`product:ELECTRICITY`, `buy`, `lang:tn`). */
  id: string;
  label: LocalText;
}

export interface Screen {
  /** Lines above the options, joined by newlines; cut at the end when the screen is too small. */
  body: LocalText[];
  /**
   * Lines after the body that are never cut (a quote's amount and total): the body is cut
   * first, then these lines and the options are paged.
   */
  keep?: LocalText[];
  /** What the dialogue is about (product and identifier), named by the resume offer after a drop. */
  about?: LocalText;
  /** Numbered 1..n in order; the engine paginates them and maps the typed number back to the id. */
  options?: ScreenOption[];
  /** Free-text input expected (identifier, amount): the engine passes the text as typed. */
  expectsText?: boolean;
  /**
   * The input is a secret (an agent's PIN): the engine passes it to the machine but never stores
   * it — the session keeps the aggregator's text with it masked, and the machine must not keep it.
   */
  secret?: boolean;
  /**
   * A dialogue dropped on this screen is never offered to resume, whatever its state's tags: a
   * field agent's (a new session must ask for the PIN again, or the phone alone would sell).
   */
  noResume?: boolean;
  /** END the dialogue after this screen. */
  final?: boolean;
  /** Show `0 Back` / `00 Home` lines (the engine handles those inputs on every non-final screen). */
  back?: boolean;
  home?: boolean;
}

/** Events the engine sends to the dialogue machine. */
export type DialogueEvent =
  /** A numbered option was chosen (by its id). */
  | { type: 'CHOOSE'; optionId: string }
  /** Free text (or an option number that matched nothing: the machine re-prompts). */
  | { type: 'TEXT'; text: string }
  | { type: 'BACK' }
  | { type: 'HOME' }
  /** The engine gave up waiting for the machine (hop budget): the machine should settle on a retry screen. */
  | { type: 'TIMEOUT' };

/** Input to a fresh dialogue. */
export interface DialogueInput {
  sessionId: string;
  aggregator: string;
  /** E.164 digits of the caller. */
  msisdn: string;
  /** Language tag `xx-XX` (remembered preference or default). */
  language: string;
  serviceCode: string;
  /**
   * When the dialogue began (epoch ms). Part of the purchase idempotency key, so an aggregator
   * that recycles session ids can never make a new dialogue find an old dialogue's purchase.
   */
  startedAt: number;
  /** What was dialled after the service code on the first hop (a one-dial shortcut), when passed. */
  dialled?: string;
}

/**
 * Tag the machine puts on every state that waits for the subscriber (or is final).
 * The engine waits for a snapshot with this tag (or status done) before rendering.
 */
export const SETTLED_TAG = 'settled';

/**
 * Tag of the settled states worth offering to resume after a drop (the subscriber is part-way
 * into a purchase). A dialogue dropped on the main menu or a final screen is not offered.
 */
export const RESUMABLE_TAG = 'resumable';

/** The machine's service calls, by their logic object (see {@link fromService}). */
const SERVICES = new WeakSet<object>();

/**
 * A dialogue's service call (a read, a quote, an idempotent order): XState's `fromPromise`, marked
 * so the engine runs the promise itself, without an actor (src/ussd/engine/dialogue-runner.ts),
 * with what XState would give it (input, an abort signal) and the same done or error event back.
 */
export const fromService: typeof fromPromise = (creator) => {
  const logic = fromPromise(creator);
  SERVICES.add(logic);
  return logic;
};

/** Whether `logic` was made by {@link fromService}. */
export function isService(logic: unknown): boolean {
  return typeof logic === 'object' && logic !== null && SERVICES.has(logic);
}
