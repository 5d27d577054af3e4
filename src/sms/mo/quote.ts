import { randomInt, randomUUID } from 'node:crypto';
import type { Agent } from '../../agents';
import { componentLogger, maskMsisdn } from '../../observability/logger';
import { normaliseMsisdn, regionFromLanguageTag, type CountryCode } from '../../phone';
import type { PurchaseIntent } from '../../purchases/types';
import type { AgentSide } from '../../sales/agent-side';
import { saleIntent } from '../../sales/intent';
import { isOperatorProblem, quoteSale, routeQuoteError } from '../../sales/quote';
import { SpendRefusedError, type SpendRefusal } from '../../spend/rules';
import { validateIdentifier } from '../../vas/catalogue';
import { errorInfo, type ServiceErrorInfo } from '../../vas/error-info';
import type { SavedMeter } from '../../subscribers/saved-meters';
import type {
  Account,
  CallContext,
  ProductType,
  PurchaseRequest,
  Transaction,
  VasProduct,
} from '../../vas/port';
import type { BuyCommand, SellCommand } from '../commands/grammar';
import type { AgentCommands } from './agent-commands';
import type { PendingQuote, SmsMoStore } from './store';
import type { MoTexts } from './texts';
import type { ConversationOutcome, Turn } from './turn';

const log = componentLogger('sms-mo');

/** How long a sender's quotes (pending and recently bought) are kept. */
export const QUOTES_KEPT_MS = 24 * 3600 * 1000;

/** What quoting by SMS reads: the catalogue, the debited account, the service, the spending rules. */
export interface SmsQuoteServices {
  products(ctx: CallContext): Promise<VasProduct[]>;
  debitAccount(): Promise<Account>;
  quote(request: PurchaseRequest, ctx: CallContext): Promise<Transaction>;
  /** The operator's spending rules for this intent (nothing counted): why it is refused, or null. */
  checkSpend(intent: PurchaseIntent): Promise<SpendRefusal | null>;
  /** The number's saved meters (`ELEC 100` buys for the last one); absent: none are kept. */
  savedMeters?: Pick<SavedMeters, 'lastFor'>;
}

/** The saved-meters service as the conversation reads it (src/subscribers/saved-meters.ts). */
export interface SavedMeters {
  list(msisdn: string, productType: ProductType): Promise<SavedMeter[]>;
  lastFor(msisdn: string, productType: ProductType): Promise<SavedMeter | null>;
}

/**
 * ELEC, WATER, AIR and SELL: the command read into a sale (src/sales/intent.ts), quoted as every
 * channel quotes (src/sales/quote.ts), and kept as the sender's pending quote with its code.
 */
export class SmsQuotes {
  constructor(
    private readonly services: SmsQuoteServices,
    private readonly agentSide: AgentSide | undefined,
    private readonly agents: AgentCommands,
    private readonly store: SmsMoStore,
    private readonly texts: MoTexts,
    private readonly settings: { quoteTtlS: number; defaultRegion: string },
    private readonly clock: () => number,
  ) {}

  /** Validate the command's purchase with the service and send the quote with its code. */
  async quote(
    turn: Turn,
    command: BuyCommand | SellCommand,
    ctx: CallContext,
    agent: Agent | null,
  ): Promise<ConversationOutcome> {
    const { lang } = turn;
    let products: VasProduct[];
    let account: Account;
    try {
      [products, account] = await Promise.all([this.services.products(ctx), this.services.debitAccount()]);
    } catch (error) {
      log.error('sms quote: catalogue or debit account unavailable', { error, smsKey: turn.key });
      await turn.say('sms.mo.unavailable');
      return 'refused';
    }
    const product = products.find((p) => p.productType === command.product);
    if (!product || product.providers.length === 0) {
      await turn.say('sms.mo.unavailable');
      return 'refused';
    }
    const target = await this.target(turn, command, product);
    if (!target) return 'refused';
    const intent = saleIntent({
      productType: command.product,
      providerCode: target.providerCode,
      identifier: target.identifier,
      customer: target.customer,
      beneficiary: target.beneficiary,
      amountMinor: command.amountMinor,
      account,
      requester: turn.msisdn,
      agent: agent && {
        accountId: agent.funding.kind === 'account' ? agent.funding.debitedAccountId : null,
      },
      language: lang,
      channel: 'SMS',
    });
    const agentSide = this.agentSide;
    if (agent && agentSide) {
      // The amount first, as the USSD amount screen checks it: the limit named before any quote.
      const refused = await agentSide.check(agent, command.amountMinor);
      if (refused) return this.agents.refused(turn, refused);
    }
    let tx: Transaction;
    try {
      tx = await quoteSale(
        {
          checkSpend: (i) => this.services.checkSpend(i),
          validate: (request) => this.services.quote(request, ctx),
          agentSaleCheck: agent && agentSide ? (_, minor) => agentSide.check(agent, minor) : undefined,
        },
        intent,
      );
    } catch (error) {
      if (error instanceof SpendRefusedError) return this.agents.refused(turn, error.refusal);
      return this.quoteRefused(turn, intent, errorInfo(error));
    }
    const quote: PendingQuote = {
      id: randomUUID(),
      code: String(randomInt(1000, 10000)),
      expiresAt: this.clock() + this.settings.quoteTtlS * 1000,
      intent: { ...intent, subscriberDetails: tx.subscriberDetails },
      total: tx.total,
    };
    const text = agent
      ? this.texts.saleQuote(lang, quote, tx, await this.floatAfter(agent, tx))
      : this.texts.quote(lang, quote, tx, product, target.savedName);
    await this.store.putQuote(turn.msisdn, { ...quote, source: { key: turn.key, text } }, QUOTES_KEPT_MS);
    await turn.sayText(text);
    log.info('sms quote sent', {
      smsKey: turn.key,
      from: maskMsisdn(turn.msisdn),
      product: intent.productType,
    });
    return 'quoted';
  }

  /**
   * The provider, the identifier and (an agent's sale) the customer the command names, or null
   * after saying what is wrong. Airtime tops up the number named, else the sender's own.
   */
  private async target(
    turn: Turn,
    command: BuyCommand | SellCommand,
    product: VasProduct,
  ): Promise<QuoteTarget | null> {
    const { lang } = turn;
    const region = regionFromLanguageTag(lang, this.settings.defaultRegion as CountryCode);
    if (command.product === 'AIRTIME') {
      const provider = airtimeProvider(product, command.network);
      if (provider.kind !== 'one') {
        const networks = product.providers.map((p) => p.code).join(', ');
        await (provider.kind === 'unknown'
          ? turn.say('sms.mo.unknownNetwork', { network: command.network ?? '', networks })
          : turn.say('sms.mo.chooseNetwork', { keyword: this.texts.keyword(lang, 'AIR'), networks }));
        return null;
      }
      const typed = command.kind === 'sell' ? command.customer : command.number;
      const number =
        typed === null ? { ok: true as const, e164: turn.msisdn } : normaliseMsisdn(typed, region);
      if (!number.ok || !validateIdentifier(product.identifier, number.e164).ok) {
        await turn.sayProblem(this.texts.problemText(lang, { code: 'phone', command: 'AIR' }));
        return null;
      }
      return {
        providerCode: provider.code,
        identifier: number.e164,
        customer: null,
        beneficiary: null,
        savedName: null,
      };
    }
    let identifier = command.identifier;
    let savedName: string | null = null;
    if (identifier === null) {
      // `ELEC 100`: the meter this number bought for last; the quote names it before any payment.
      const last = await this.services.savedMeters?.lastFor(turn.msisdn, command.product);
      if (!last) {
        await turn.sayProblem(this.texts.noSavedMeter(lang, command.product, command.amountMinor));
        return null;
      }
      ({ identifier, name: savedName } = last);
    }
    const check = validateIdentifier(product.identifier, identifier);
    if (!check.ok) {
      await turn.sayProblem(this.texts.identifierProblem(lang, product, check));
      return null;
    }
    let customer: string | null = null;
    if (command.kind === 'sell') {
      const number = normaliseMsisdn(command.customer, region);
      if (!number.ok) {
        await turn.sayProblem(this.texts.problemText(lang, { code: 'phone', command: 'SELL' }));
        return null;
      }
      customer = number.e164;
    }
    let beneficiary: string | null = null;
    if (command.kind === 'buy' && command.beneficiary !== undefined) {
      // A gift: the token to that number, the sender pays (and owns the purchase).
      const number = normaliseMsisdn(command.beneficiary, region);
      if (!number.ok) {
        await turn.sayProblem(
          this.texts.problemText(lang, { code: 'phone', command: commandOf(command.product) }),
        );
        return null;
      }
      if (number.e164 !== turn.msisdn) beneficiary = number.e164;
    }
    return { providerCode: product.providers[0].code, identifier, customer, beneficiary, savedName };
  }

  /** What a float agent's float holds after the sale (null: the agent sells from an account). */
  private async floatAfter(agent: Agent, tx: Transaction) {
    if (agent.funding.kind !== 'float' || !this.agentSide) return null;
    const { float } = this.agentSide;
    return float.money((await float.balance(agent.msisdn)).availableMinor - tx.total.minor);
  }

  /** The service refused the quote: routed as on USSD (src/sales/quote.ts), in SMS words. */
  private async quoteRefused(
    turn: Turn,
    intent: PurchaseIntent,
    info: ServiceErrorInfo,
  ): Promise<ConversationOutcome> {
    const { lang } = turn;
    const airtime = intent.productType === 'AIRTIME';
    const route = routeQuoteError(info, airtime);
    if (isOperatorProblem(info, airtime))
      log.error('SMS QUOTE FAILED ON THE OPERATOR SIDE: subscribers are told the service is unavailable', {
        smsKey: turn.key,
        code: info.code,
        status: info.status,
        message: info.message,
      });
    if (route === 'unavailable') await turn.say('sms.mo.unavailable');
    else if (route === 'tryLater' && info.code !== 'transaction_pending') await turn.say('sms.mo.tryLater');
    else
      await turn.say('sms.mo.refused', {
        product: this.texts.productName(lang, intent.productType),
        identifier: intent.subscriberIdentifier,
        reason: this.texts.serviceReason(lang, info.code, info.message),
      });
    return 'refused';
  }
}

/** Who and what a command buys for, once read and checked. */
interface QuoteTarget {
  providerCode: string;
  identifier: string;
  /** An agent's customer. */
  customer: string | null;
  /** A subscriber's gift: who gets the token. */
  beneficiary: string | null;
  /** The name saved with the meter `ELEC 100` chose (the quote's fallback name). */
  savedName: string | null;
}

const commandOf = (product: 'ELECTRICITY' | 'WATER') => (product === 'WATER' ? 'WATER' : 'ELEC');

/** The airtime network a command names (or the only one): one, none known by that name, or ask. */
function airtimeProvider(
  product: VasProduct,
  named: string | null,
): { kind: 'one'; code: string } | { kind: 'unknown' } | { kind: 'ask' } {
  if (named === null)
    return product.providers.length === 1
      ? { kind: 'one', code: product.providers[0].code }
      : { kind: 'ask' };
  const wanted = squash(named);
  const match = product.providers.filter(
    (p) => squash(p.code) === wanted || squash(p.name).startsWith(wanted) || squash(p.name).includes(wanted),
  );
  const exact = match.find((p) => squash(p.code) === wanted);
  if (exact) return { kind: 'one', code: exact.code };
  return match.length === 1 ? { kind: 'one', code: match[0].code } : { kind: 'unknown' };
}

function squash(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9]/g, '');
}
