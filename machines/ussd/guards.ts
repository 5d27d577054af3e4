/** The dialogue's guards: pure questions about the context and the subscriber's event. */
import { errorInfo } from '../../src/vas/error-info';
import type { DialogueArgs, StallTarget, UssdContext } from './context';
import { routeQuoteError, spendRoute, type QuoteErrorRoute } from '../../src/sales/quote';
import {
  airtimeNumber,
  customerNumber,
  amountProblem,
  chosen,
  chosenAfter,
  identifierProblem,
  productOf,
  typed,
} from './input';
import { offeredMeters, savedMeters } from './meters';

const providersOf = (ctx: UssdContext) => productOf(ctx, ctx.purchase.productType)?.providers ?? [];

/** Named guards for `setup`. */
export const guards = {
  chose: ({ event }: DialogueArgs, params: { id: string }) => chosen(event) === params.id,
  choseProduct: ({ context, event }: DialogueArgs) =>
    productOf(context, chosenAfter(event, 'product:')) !== undefined,
  choseProvider: ({ context, event }: DialogueArgs) =>
    providersOf(context).some((p) => p.code === chosenAfter(event, 'provider:')),
  choseLanguage: ({ context, event }: DialogueArgs) =>
    context.settings.languages.some((l) => l.code === chosenAfter(event, 'lang:')),
  manyProviders: ({ context }: DialogueArgs) => providersOf(context).length > 1,
  isAirtime: ({ context }: DialogueArgs) => context.purchase.productType === 'AIRTIME',
  airtimeForOther: ({ context }: DialogueArgs) => context.purchase.airtimeFor === 'other',
  // The caller's MSISDN is E.164 digits already: parse it as international, whatever the region.
  ownNumberFits: ({ context }: DialogueArgs) =>
    airtimeNumber(context, `+${context.msisdn}`) === context.msisdn,
  identifierOk: ({ context, event }: DialogueArgs) =>
    typed(event) !== '' && identifierProblem(context, typed(event)) === null,
  phoneOk: ({ context, event }: DialogueArgs) => airtimeNumber(context, typed(event)) !== null,
  amountOk: ({ context, event }: DialogueArgs) => amountProblem(context, typed(event)) === null,
  /** `0` on the amount screen was asked about once already: now it means Back. */
  backAsked: ({ context }: DialogueArgs) => context.purchase.backAsked,
  identifierTriesLeft: ({ context }: DialogueArgs) =>
    context.purchase.identifierTries + 1 < context.settings.maxTries,
  amountTriesLeft: ({ context }: DialogueArgs) =>
    context.purchase.amountTries + 1 < context.settings.maxTries,
  /** `error` is the failed quote's, passed as a param by the `onError` transition. */
  quoteRoute: ({ context }: DialogueArgs, params: { route: QuoteErrorRoute; error: unknown }) =>
    (spendRoute(params.error) ??
      routeQuoteError(errorInfo(params.error), context.purchase.productType === 'AIRTIME')) === params.route,
  /** Field agents (see agent.ts). */
  verifiedAgent: ({ context }: DialogueArgs) => context.agent?.verified === true,
  isAgentCaller: ({ context }: DialogueArgs) => context.agent !== null && context.agent !== undefined,
  agentAirtime: ({ context }: DialogueArgs) =>
    context.agent?.verified === true && context.purchase.productType === 'AIRTIME',
  needsCustomer: ({ context }: DialogueArgs) =>
    context.agent?.verified === true && context.purchase.productType !== 'AIRTIME',
  agentDisabled: ({ context }: DialogueArgs) => context.agent?.status === 'disabled',
  agentLocked: ({ context }: DialogueArgs) => context.agent?.status === 'locked',
  customerOk: ({ context, event }: DialogueArgs) => customerNumber(context, typed(event)) !== null,
  /** The operator's spending rules refused the order (a limit reached since the quote). */
  spendRefused: (_: DialogueArgs, params: { error: unknown }) => spendRoute(params.error) !== null,
  stalledOn: ({ context }: DialogueArgs, params: { on: readonly StallTarget[] }) =>
    context.purchase.stalled !== null && params.on.includes(context.purchase.stalled),

  hasShortcut: ({ context }: DialogueArgs) => Boolean(context.purchase.shortcut),
  shortcutHasNoProduct: ({ context }: DialogueArgs) => context.purchase.productType === null,
  noProvider: ({ context }: DialogueArgs) => context.purchase.providerCode === null,
  noIdentifier: ({ context }: DialogueArgs) => context.purchase.identifier === null,
  noAmount: ({ context }: DialogueArgs) => context.purchase.amountMinor === null,
  choseSavedMeter: ({ context, event }: DialogueArgs) =>
    offeredMeters(context).some((m) => m.identifier === chosenAfter(event, 'meter:')),
  /** Electricity and water for a subscriber ask who gets the token, unless the operator turned it off. */
  asksTokenRecipient: ({ context }: DialogueArgs) =>
    context.agent?.verified !== true &&
    context.purchase.productType !== 'AIRTIME' &&
    context.settings.askTokenRecipient === true,
  tokenForOther: ({ context }: DialogueArgs) => context.purchase.tokenTo === 'other',
  askedTokenFor: ({ context }: DialogueArgs) =>
    context.purchase.tokenTo === 'self' &&
    context.settings.askTokenRecipient === true &&
    !context.agent?.verified,
  foundInProgress: ({ event }: DialogueArgs) =>
    ((event as unknown as { output?: unknown[] }).output?.length ?? 0) > 0,
  chosePurchase: ({ context, event }: DialogueArgs) =>
    context.tokens.some((t) => t.purchaseId === chosenAfter(event, 'purchase:')),
  choseReason: ({ event }: DialogueArgs) =>
    REPORT_REASONS.includes(chosenAfter(event, 'reason:') as (typeof REPORT_REASONS)[number]),
  /** The caller's saved meters were read (when the dialogue started, or by "My meters"). */
  metersKnown: ({ context }: DialogueArgs) => context.meters !== undefined,
  choseSaved: ({ context, event }: DialogueArgs) =>
    savedMeters(context).some((m) => `${m.productType}:${m.identifier}` === chosenAfter(event, 'saved:')),
  choseResendToken: ({ context, event }: DialogueArgs) =>
    chosen(event) === 'resend' &&
    context.tokens.find((t) => t.purchaseId === context.resendId)?.status === 'delivered',
};

/** "Report a problem": the reasons, in the order shown (src/purchases/care/cases.ts's codes). */
export const REPORT_REASONS = ['token_not_received', 'meter_rejects', 'wrong_meter', 'other'] as const;
