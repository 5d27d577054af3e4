/** The dialogue's actions: context updates only (no I/O, no logging; the actors do that). */
import { refusalText, SpendRefusedError, type SpendRefusal } from '../../src/spend/rules';
import { assign } from 'xstate';
import type { DialogueEvent, LocalText } from '../../src/ussd/engine/dialogue';
import { errorInfo } from '../../src/vas/error-info';
import type {
  DialogueArgs,
  InProgressItem,
  PurchaseDraft,
  SavedMeters,
  Shown,
  StallTarget,
  UssdContext,
} from './context';
import { applyShortcut, withoutPinShaped } from './shortcut';
import { routeQuoteError } from '../../src/sales/quote';
import { dialogueError, reasonText, refusalNotice } from './errors';
import {
  airtimeNumber,
  customerNumber,
  amountMinor,
  amountProblem,
  chosenAfter,
  compact,
  identifierProblem,
  productOf,
  typed,
} from './input';
import type { PromptName } from './screens';

/** `assign` typed for this machine, so the actions can live outside `setup`. */
const update = <P = undefined>(fn: (args: DialogueArgs, params: P) => Partial<UssdContext>) =>
  assign<UssdContext, DialogueEvent, P, DialogueEvent, never>(fn);

/** The in-progress purchase, cleared on HOME. */
export const NO_PURCHASE: Readonly<PurchaseDraft> = Object.freeze({
  productType: null,
  providerCode: null,
  airtimeFor: null,
  identifier: null,
  identifierTries: 0,
  amountMinor: null,
  amountTries: 0,
  backAsked: false,
  quote: null,
  stalled: null,
  lastError: null,
});

/** The Buy's thank-you screen, by name (one object for every dialogue). */
const DONE: Shown = Object.freeze({ done: true });

/** The context's update for a change to the purchase being put together. */
const draft = (context: UssdContext, changes: Partial<PurchaseDraft>): Pick<UssdContext, 'purchase'> => ({
  purchase: { ...context.purchase, ...changes },
});

/** Named actions for `setup`. */
export const actions = {
  /** A prompt, with the pending notice above it (shown once: the context's is cleared). */
  show: update(({ context }, params: { prompt: PromptName }) => ({
    shown: context.notice ? { prompt: params.prompt, notice: context.notice } : { prompt: params.prompt },
    notice: null,
  })),
  showDone: update(() => ({ shown: DONE })),
  showFinal: update((_, params: { key: string }) => ({ shown: { end: { key: params.key } } })),
  /** Field agents: the PIN passed; a wrong one (attempts left); locked (until when). */
  agentVerified: update(({ context }) => ({
    agent: context.agent ? { ...context.agent, verified: true } : null,
    notice: null,
  })),
  wrongPin: update(({ event }) => {
    const out = (event as unknown as { output: { attemptsLeft?: number } }).output;
    return { notice: { key: 'agent.pin.wrong', params: { left: out.attemptsLeft ?? 0 } } };
  }),
  lockedUntil: update(({ event }) => {
    const out = (event as unknown as { output: { until?: string } }).output;
    return { notice: { key: 'agent.locked', params: { until: out.until ?? '' } } };
  }),
  lockedNotice: update(({ context }) => ({
    notice: { key: 'agent.locked', params: { until: context.agent?.lockedUntil ?? '' } },
  })),
  pinVersion: update(({ context, event }) => {
    const out = (event as unknown as { output: { pinVersion?: number } }).output;
    return { agent: context.agent ? { ...context.agent, pinVersion: out.pinVersion } : null };
  }),
  pinCandidate: update(({ context, event }) => {
    const out = (
      event as unknown as { output: { candidate?: NonNullable<UssdContext['agent']>['candidate'] } }
    ).output;
    return { agent: context.agent ? { ...context.agent, candidate: out.candidate ?? null } : null };
  }),
  pinProblem: update(({ event }) => {
    const out = (event as unknown as { output: { problem?: string } }).output;
    return {
      notice: {
        key: `agent.pin.problem.${out.problem === 'weak' || out.problem === 'same' ? out.problem : 'format'}`,
      },
    };
  }),
  pinChanged: update(({ context }) => ({
    agent: context.agent ? { ...context.agent, verified: true, candidate: null } : null,
    notice: { key: 'agent.pin.changed' },
  })),
  /** The agent's float or limits refused the amount typed: named above the amount prompt. */
  saleRefused: update(({ event }) => {
    const refusal = (event as unknown as { output: SpendRefusal | null }).output;
    return { notice: refusal ? refusalText(refusal) : null };
  }),
  /** A customer's number that is no mobile number: one try fewer, said as such. */
  customerTry: update(({ context }) => ({
    ...draft(context, { identifierTries: context.purchase.identifierTries + 1 }),
    notice: { key: 'identifier.invalid.invalidPhone' },
  })),
  takeCustomer: update(({ context, event }) =>
    draft(context, { customer: customerNumber(context, typed(event)) }),
  ),
  /** A closing screen that says why (the notice set by the refusal). */
  showNoticeFinal: update(({ context }) => ({
    shown: { end: context.notice ?? { key: 'error.serviceUnavailable' } },
  })),
  showTryLater: update(({ context }) => ({
    shown: { end: reasonText(context.purchase.lastError?.code ?? '', 'error.tryAgainLater') },
  })),
  notice: update((_, params: { key: string }) => ({ notice: { key: params.key } })),
  clearPurchase: update(() => ({ purchase: NO_PURCHASE })),
  stall: update(({ context }, params: { on: StallTarget }) => draft(context, { stalled: params.on })),
  unstall: update(({ context }) => draft(context, { stalled: null })),
  selectProduct: update(({ event }) => ({
    purchase: {
      ...NO_PURCHASE,
      productType: chosenAfter(event, 'product:') as PurchaseDraft['productType'],
    },
  })),
  selectProvider: update(({ context, event }) =>
    draft(context, { providerCode: chosenAfter(event, 'provider:') }),
  ),
  selectOnlyProvider: update(({ context }) =>
    draft(context, {
      providerCode: productOf(context, context.purchase.productType)?.providers[0]?.code ?? null,
    }),
  ),
  useOwnNumber: update(({ context }) => draft(context, { airtimeFor: 'self', identifier: context.msisdn })),
  useOtherNumber: update(({ context }) => draft(context, { airtimeFor: 'other' })),
  takePhone: update(({ context, event }) =>
    draft(context, { identifier: airtimeNumber(context, typed(event)) }),
  ),
  takeIdentifier: update(({ context, event }) => draft(context, { identifier: compact(typed(event)) })),
  takeAmount: update(({ context, event }) => draft(context, { amountMinor: amountMinor(typed(event)) })),
  /** A wrong identifier (typed, or refused by the service): one try fewer, the reason above the re-prompt. */
  identifierTry: update(({ context, event }) => ({
    ...draft(context, { identifierTries: context.purchase.identifierTries + 1 }),
    notice: event.type === 'TEXT' ? identifierNotice(context, event.text.trim()) : context.notice,
  })),
  /** A wrong amount (typed, or refused by the service). */
  amountTry: update(({ context, event }) => ({
    ...draft(context, { amountTries: context.purchase.amountTries + 1 }),
    notice: event.type === 'TEXT' ? amountProblem(context, event.text.trim()) : context.notice,
  })),
  /** `0` typed on the amount screen: ask once whether it meant Back (it is no amount). */
  askBack: update(({ context }) => ({
    ...draft(context, { backAsked: true }),
    notice: { key: 'amount.zeroIsBack' },
  })),
  forgetBack: update(({ context }) => draft(context, { backAsked: false })),
  /** A refused quote: the reason goes above the re-prompt, the error into the context. */
  quoteRefused: update(({ context }, params: { error: unknown }) => {
    // The operator's own rules name their limit (and when a daily one resets).
    if (params.error instanceof SpendRefusedError)
      return {
        notice: refusalText(params.error.refusal),
        ...draft(context, {
          lastError: { code: params.error.refusal.code, message: params.error.message, param: null },
        }),
      };
    const info = errorInfo(params.error);
    const route = routeQuoteError(info, context.purchase.productType === 'AIRTIME');
    const fallback =
      route === 'amount'
        ? 'reason.invalid_amount'
        : route === 'refused'
          ? 'reason.provider_error'
          : 'identifier.invalid.pattern';
    return { notice: refusalNotice(info, fallback), ...draft(context, { lastError: dialogueError(info) }) };
  }),
  /** Any other failure, kept for the closing line (the actor already reported the operator's). */
  recordError: update(({ context }, params: { error: unknown }) =>
    draft(context, { lastError: dialogueError(errorInfo(params.error)) }),
  ),
  setLanguage: update(({ context, event }) => {
    const code = chosenAfter(event, 'lang:');
    const lang = context.settings.languages.find((l) => l.code === code);
    return lang ? { language: lang.tag } : {};
  }),

  /** A one-dial shortcut read into the draft (shortcut.ts); a refused part's reason above its screen. */
  applyShortcut: update(({ context }) => {
    const { purchase, notice } = applyShortcut(context);
    return notice ? { purchase, notice } : { purchase };
  }),
  /** The shortcut without a group an agent's PIN could be (shortcut.ts), while it waits. */
  shortcutWithoutPin: update(({ context }) =>
    context.purchase.shortcut
      ? draft(context, { shortcut: withoutPinShaped(context.purchase.shortcut) })
      : {},
  ),
  /** The caller's saved meters as the service answered them ("My meters" read, or one removed). */
  takeMeters: update(({ event }) => ({ meters: (event as unknown as { output: SavedMeters }).output })),
  /** "Another meter": the identifier typed; `offerSaved` offers the saved ones again (a way back). */
  typeMeter: update(({ context }) => draft(context, { typedMeter: true })),
  offerSaved: update(({ context }) =>
    context.purchase.typedMeter ? draft(context, { typedMeter: undefined }) : {},
  ),
  /** A saved meter chosen on the identifier screen. */
  takeSavedMeter: update(({ context, event }) =>
    draft(context, { identifier: chosenAfter(event, 'meter:') }),
  ),
  tokenToSelf: update(({ context }) => draft(context, { tokenTo: 'self', beneficiary: null })),
  tokenToOther: update(({ context }) => draft(context, { tokenTo: 'other' })),
  takeBeneficiary: update(({ context, event }) =>
    draft(context, { beneficiary: airtimeNumber(context, typed(event)) }),
  ),
  takeInProgress: update(({ context, event }) =>
    draft(context, { inProgress: (event as unknown as { output: InProgressItem[] }).output }),
  ),
  /** "My purchases": one chosen (its detail, resend, report). */
  choosePurchase: update(({ event }) => ({ resendId: chosenAfter(event, 'purchase:') })),
  chooseReason: update(({ context, event }) => draft(context, { report: chosenAfter(event, 'reason:') })),
  takeCase: update(({ context, event }) =>
    draft(context, { caseId: (event as unknown as { output: string }).output }),
  ),
  /** "My meters": the list, one chosen (product and identifier), forgotten. */
  chooseMeter: update(({ context, event }) => {
    const [type, identifier] = (chosenAfter(event, 'saved:') ?? '').split(':');
    return draft(context, {
      productType: (type || null) as PurchaseDraft['productType'],
      identifier: identifier || null,
    });
  }),
  showHelp: update(({ context }) => {
    const care = context.settings.care;
    const end: LocalText = care
      ? care.hours
        ? { key: 'help.careHours', params: { phone: care.phone, hours: care.hours } }
        : { key: 'help.care', params: { phone: care.phone } }
      : { key: 'help.none' };
    return { shown: { end } };
  }),
  showReported: update(({ context }) => ({
    shown: { end: { key: 'report.opened', params: { case: context.purchase.caseId ?? '' } } },
  })),
};

function identifierNotice(ctx: UssdContext, text: string): LocalText | null {
  return ctx.purchase.productType === 'AIRTIME'
    ? { key: 'identifier.invalid.invalidPhone' }
    : identifierProblem(ctx, text);
}
