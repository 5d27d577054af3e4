/** FROZEN copy for the version 6 machine (./machine.ts): do not edit. */
/**
 * The dialogue's transitions written once: re-prompts, the way home, prompts and closing
 * screens, the stall on a slow or failed actor, and the typed answers that count tries.
 */
import { RESUMABLE_TAG, SETTLED_TAG } from '../../../src/session/dialogue';
import type { PromptName } from './screens';
import type { StallTarget } from '../context';
import type { QuoteErrorRoute } from '../../../src/sales/quote';

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
 * `tries` fewer and the same prompt with the reason, or a polite end when none is left.
 */
export const typedAnswer = (
  state: string,
  ok: 'phoneOk' | 'identifierOk' | 'amountOk',
  take: 'takePhone' | 'takeIdentifier' | 'takeAmount',
  next: string,
  tries: 'identifier' | 'amount',
) =>
  [
    { guard: ok, target: next, actions: take },
    { guard: `${tries}TriesLeft`, target: state, reenter: true, actions: `${tries}Try` },
    { target: 'tooManyTries', actions: `${tries}Try` },
  ] as const;

/** The "please try again" screen stands for one of `on`. */
export const stalledOn = (...on: StallTarget[]) => ({ type: 'stalledOn', params: { on } }) as const;
/** Once an order may exist (or nothing is loaded yet), BACK and HOME keep the stalled screen. */
export const stayStalled = {
  guard: stalledOn('order', 'catalogue'),
  target: 'stalled',
  reenter: true,
} as const;

/** Version 6's stall targets. */
type V6StallTarget = Extract<StallTarget, 'catalogue' | 'quote' | 'order' | 'tokens' | 'resend'>;

/** Which state re-runs the invocation a "please try again" screen stands for. */
const RETRY: Record<V6StallTarget, string> = {
  catalogue: 'loading',
  quote: 'quoting',
  order: 'ordering',
  tokens: 'tokensLoading',
  resend: 'resending',
};
/** Option 1 on the stalled screen: back to the state that runs the same (safe) invocation. */
export const retryStalled = [
  ...(Object.entries(RETRY) as Array<[V6StallTarget, string]>).map(([on, target]) => ({
    guard: stalledOn(on),
    target,
  })),
  toMenu,
];
