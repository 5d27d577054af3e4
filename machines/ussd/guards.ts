/** The dialogue's guards: pure questions about the context and the subscriber's event. */
import type { DialogueEvent } from '../../src/session/dialogue';
import { errorInfo } from '../../src/vas/error-info';
import type { StallTarget, UssdContext } from './context';
import { routeQuoteError, type QuoteErrorRoute } from './errors';
import {
  airtimeNumber,
  amountProblem,
  chosen,
  chosenAfter,
  identifierProblem,
  productOf,
  typed,
} from './input';

interface Args {
  context: UssdContext;
  event: DialogueEvent;
}

const providersOf = (ctx: UssdContext) => productOf(ctx, ctx.productType)?.providers ?? [];

/** Named guards for `setup`. */
export const guards = {
  chose: ({ event }: Args, params: { id: string }) => chosen(event) === params.id,
  choseProduct: ({ context, event }: Args) =>
    productOf(context, chosenAfter(event, 'product:')) !== undefined,
  choseProvider: ({ context, event }: Args) =>
    providersOf(context).some((p) => p.code === chosenAfter(event, 'provider:')),
  choseLanguage: ({ context, event }: Args) =>
    context.settings.languages.some((l) => l.code === chosenAfter(event, 'lang:')),
  choseToken: ({ context, event }: Args) =>
    context.tokens.some((t) => t.purchaseId === chosenAfter(event, 'token:')),
  manyProviders: ({ context }: Args) => providersOf(context).length > 1,
  isAirtime: ({ context }: Args) => context.productType === 'AIRTIME',
  airtimeForOther: ({ context }: Args) => context.airtimeFor === 'other',
  // The caller's MSISDN is E.164 digits already: parse it as international, whatever the region.
  ownNumberFits: ({ context }: Args) => airtimeNumber(context, `+${context.msisdn}`) === context.msisdn,
  identifierOk: ({ context, event }: Args) =>
    typed(event) !== '' && identifierProblem(context, typed(event)) === null,
  phoneOk: ({ context, event }: Args) => airtimeNumber(context, typed(event)) !== null,
  amountOk: ({ event }: Args) => amountProblem(typed(event)) === null,
  identifierTriesLeft: ({ context }: Args) => context.identifierTries + 1 < context.settings.maxTries,
  amountTriesLeft: ({ context }: Args) => context.amountTries + 1 < context.settings.maxTries,
  /** `error` is the failed quote's, passed as a param by the `onError` transition. */
  quoteRoute: ({ context }: Args, params: { route: QuoteErrorRoute; error: unknown }) =>
    routeQuoteError(errorInfo(params.error), context.productType === 'AIRTIME') === params.route,
  stalledOn: ({ context }: Args, params: { on: readonly StallTarget[] }) =>
    context.stalled !== null && params.on.includes(context.stalled),
};
