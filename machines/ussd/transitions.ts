/**
 * The dialogue's transitions written once: re-prompts, the way home, prompts and closing
 * screens, the stall on a slow or failed actor, and the typed answers that count tries.
 */
import { assign, type EventObject } from 'xstate';
import { RESUMABLE_TAG, SETTLED_TAG, type DialogueEvent } from '../../src/ussd/engine/dialogue';
import type { PromptName } from './screens';
import type { StallTarget, UssdContext } from './context';
import type { QuoteErrorRoute } from '../../src/sales/quote';

/** A service's answer, as the guards and actions of the state files read it. */
export interface Answered<T> {
  event: { output: T };
}
/** What an invocation's `input` reads: the context. */
export interface InContext {
  context: UssdContext;
}
/** `assign` for this machine's context from an event of type `E`, for states written outside `setup`. */
export const keep = <E extends EventObject>(
  fn: (args: { context: UssdContext; event: E }) => Partial<UssdContext>,
) => assign<UssdContext, E, undefined, DialogueEvent, never>(fn);

/** An `onError` transition's event: the actor's error is handed to guards and actions as a param. */
interface FailedEvent {
  event: { error: unknown };
}
/** An action given the failed actor's error. */
export const withError = (type: 'quoteRefused' | 'recordError') =>
  ({ type, params: ({ event }: FailedEvent) => ({ error: event.error }) }) as const;

/** Shows `state` again with a notice above it (`error.invalidChoice` unless told). */
export const again = (state: string, key = 'error.invalidChoice') =>
  ({ target: state, reenter: true, actions: { type: 'notice', params: { key } } }) as const;
/** Back to the main menu, forgetting the purchase in progress. */
export const toMenu = { target: 'menu', actions: 'clearPurchase' } as const;
/**
 * The events of a screen of options at `state`: the first of `choices` that applies, else the same
 * screen saying the choice was invalid (typed text is never a choice); HOME leaves for the menu.
 */
export const choosing = <const C extends readonly unknown[], const B>(state: string, choices: C, back: B) =>
  ({ CHOOSE: [...choices, again(state)], TEXT: again(state), BACK: back, HOME: toMenu }) as const;
/** Shows a prompt on entry. */
const show = (prompt: PromptName) => ({ type: 'show', params: { prompt } }) as const;
/** A state waiting for the subscriber; `resumable` ones may be offered again after a drop. */
export const waiting = (prompt: PromptName, resumable = true) => ({
  tags: resumable ? [SETTLED_TAG, RESUMABLE_TAG] : [SETTLED_TAG],
  entry: show(prompt),
});
/** A closing screen with one line. */
export const end = (key: string) =>
  ({ type: 'final', tags: SETTLED_TAG, entry: { type: 'showFinal', params: { key } } }) as const;
/** "Please try again" for the invocation `on`, reached on TIMEOUT or (`stallOnError`) failure. */
export const stallOn = (on: StallTarget) =>
  ({ target: 'stalled', actions: { type: 'stall', params: { on } } }) as const;
export const stallOnError = (on: StallTarget) =>
  ({ target: 'stalled', actions: [withError('recordError'), { type: 'stall', params: { on } }] }) as const;
/** Routes a failed quote by its error (see errors.ts). */
export const quoteRoute = (route: QuoteErrorRoute) =>
  ({ type: 'quoteRoute', params: ({ event }: FailedEvent) => ({ route, error: event.error }) }) as const;

/**
 * Typed text at `state`: accepted by `ok` → `take` it and go on to `next`; refused → one
 * `tries` fewer (counted by `count`) and the same prompt with the reason, or a polite end when
 * none is left. A phone number typed for someone else counts as a wrong identifier (`customerTry`).
 */
export const typedAnswer = <T extends 'identifier' | 'amount'>(
  state: string,
  ok: 'phoneOk' | 'identifierOk' | 'amountOk' | 'customerOk',
  take: 'takePhone' | 'takeIdentifier' | 'takeAmount' | 'takeBeneficiary' | 'takeCustomer',
  next: string,
  tries: T,
  count: `${T}Try` | 'customerTry' = `${tries}Try`,
) =>
  [
    { guard: ok, target: next, actions: take },
    { guard: `${tries}TriesLeft`, target: state, reenter: true, actions: count },
    { target: 'tooManyTries', actions: count },
  ] as const;

/** The "please try again" screen stands for one of `on`. */
export const stalledOn = (...on: StallTarget[]) => ({ type: 'stalledOn', params: { on } }) as const;
/** Once an order may exist (or nothing is loaded yet), BACK and HOME keep the stalled screen. */
export const stayStalled = {
  guard: stalledOn('order', 'catalogue'),
  target: 'stalled',
  reenter: true,
} as const;

/** Which state re-runs the invocation a "please try again" screen stands for. */
const RETRY: Record<StallTarget, string> = {
  catalogue: 'loading',
  quote: 'quoting',
  order: 'ordering',
  tokens: 'tokensLoading',
  resend: 'resending',
  meters: 'metersLoading',
  inProgress: 'inProgressCheck',
  removeMeter: 'removing',
  report: 'reporting',
};
/** Option 1 on the stalled screen: back to the state that runs the same (safe) invocation. */
export const retryStalled = [
  ...(Object.entries(RETRY) as Array<[StallTarget, string]>).map(([on, target]) => ({
    guard: stalledOn(on),
    target,
  })),
  toMenu,
];
