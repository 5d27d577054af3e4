import { createHash, randomInt, randomUUID } from 'node:crypto';
import { isOperatorProblem, routeQuoteError } from '../../../../machines/ussd/errors';
import { transliterate, type Locales } from '../../../i18n';
import { localDay, localTime } from '../../../i18n/local-time';
import { componentLogger, maskMsisdn } from '../../../observability/logger';
import { normaliseMsisdn, regionFromLanguageTag, type CountryCode } from '../../../phone';
import { purchaseRequest } from '../../../purchases/request';
import type { PurchaseDesk, PurchaseIntent, PurchaseRecord } from '../../../purchases/types';
import { validateIdentifier } from '../../../vas/catalogue';
import { errorInfo, type ServiceErrorInfo } from '../../../vas/error-info';
import { formatMoney } from '../../../vas/money';
import type { Account, CallContext, PurchaseRequest, Transaction, VasProduct } from '../../../vas/port';
import { parseTokens, tokensForDisplay } from '../../../vas/tokens';
import {
  parseSmsCommand,
  type BuyCommand,
  type ParseProblem,
  type SellCommand,
  type SmsCommand,
} from '../commands/grammar';
import type { Agent, Agents } from '../../../agents';
import { saleRefusalOf } from '../../../agents/refusal';
import { Keywords, type CommandName } from '../commands/keywords';
import type { InboundSms, PinVerdict } from '../inbound/types';
import { refusalText, SpendRefusedError, type SpendRefusal } from '../../../spend/rules';
import type { PendingQuote, SeenKey, SmsMoStore } from './store';

const log = componentLogger('sms-mo');

/** What the conversation may call: reads, the quote, the desk, the language preference, the reply queue. */
export interface SmsConversationServices {
  products(ctx: CallContext): Promise<VasProduct[]>;
  debitAccount(): Promise<Account>;
  quote(request: PurchaseRequest, ctx: CallContext): Promise<Transaction>;
  /** The operator's spending rules for this intent (nothing counted): why it is refused, or null. */
  checkSpend(intent: PurchaseIntent): Promise<SpendRefusal | null>;
  desk: Pick<PurchaseDesk, 'create' | 'listByMsisdn'>;
  language: { get(msisdn: string): Promise<string | null>; set(msisdn: string, tag: string): Promise<void> };
  /** Field agents (registry and float); absent: agent commands are answered "not an agent". */
  agents?: Pick<Agents, 'registry' | 'float'>;
  /** Queue one reply SMS; `id` de-duplicates (the same inbound message never gets two replies). */
  reply(sms: { id: string; to: string; message: string }): Promise<void>;
}

export interface SmsConversationSettings {
  /** How long a quote can be bought (`SMS_QUOTE_TTL_S`). */
  quoteTtlS: number;
  /** Inbound messages per sender per minute before "too many messages" (`SMS_RATE_PER_MIN`). */
  ratePerMin: number;
  /** Replies per sender per minute: an auto-responder loop dies out (`SMS_REPLIES_PER_MIN`). */
  repliesPerMin: number;
  /** Tag of the default language (`en-BW`). */
  defaultLanguage: string;
  defaultRegion: string;
  /** IANA zone dates are shown in (`TZ`, default Africa/Gaborone). */
  timeZone: string;
}

/** What happened to one inbound message (logged, and what tests observe). */
export type ConversationOutcome =
  'ignored-sender' | 'rate-limited' | 'quoted' | 'bought' | 'already-bought' | 'refused' | 'answered';

/** How long a sender's quotes (pending and recently bought) are kept. */
const QUOTES_KEPT_MS = 24 * 3600 * 1000;
const MINUTE_MS = 60_000;
/** Replies to YES that are shown before the token SMS arrives: there are none (the token SMS is the answer). */
const TOKENS_SHOWN = 3;
/** Shorter numbers are short codes or service numbers: never answered (no loops with other services). */
const MIN_SUBSCRIBER_DIGITS = 8;

/** Commands that ask for a quote: a new one, even refused, replaces the pending quote. */
const PURCHASE_COMMANDS: ReadonlySet<CommandName> = new Set(['ELEC', 'WATER', 'AIR', 'SELL']);

/** Marker of a message without a provider id: sender + text, for a few seconds. */
export function textMarker(msisdn: string, text: string): SeenKey {
  return {
    msisdn,
    digest: createHash('sha256').update(text.trim().toUpperCase()).digest('hex').slice(0, 24),
  };
}

/**
 * The SMS-MO conversation: one inbound message → at most one reply, and at most one purchase per
 * quote. It decides; the store keeps what must survive between messages; the desk buys through
 * the same confirm-once lifecycle as USSD (the quote's id is the idempotency key).
 */
export class SmsConversation {
  private readonly keywords: Keywords;

  constructor(
    private readonly store: SmsMoStore,
    private readonly services: SmsConversationServices,
    private readonly locales: Locales,
    private readonly settings: SmsConversationSettings,
    private readonly clock: () => number = Date.now,
  ) {
    this.keywords = new Keywords(locales);
  }

  /** Handle one inbound message, identified by `key` (its de-duplication key). Idempotent per key. */
  async handle(sms: InboundSms, key: string): Promise<ConversationOutcome> {
    const region = this.settings.defaultRegion as CountryCode;
    const sender = normaliseMsisdn(sms.from, region);
    if (!sender.ok || sender.e164.length < MIN_SUBSCRIBER_DIGITS) {
      log.info('inbound sms from a short code or alphanumeric sender: not answered', { smsKey: key });
      return 'ignored-sender';
    }
    const msisdn = sender.e164;
    const ctx: CallContext = { requestId: `sms-${key}`.slice(0, 128) };
    const parsed = parseSmsCommand(sms.text, this.keywords);
    const stored = await this.services.language.get(msisdn);
    const lang =
      stored ?? (parsed.language ? this.locales.meta(parsed.language).tag : this.settings.defaultLanguage);
    const turn = new Turn(this, this.locales, msisdn, lang, key, sms.pin);

    const inbound = await this.store.hit('inbound', msisdn, MINUTE_MS, this.clock());
    if (inbound > this.settings.ratePerMin) {
      // Answered once per window, even past the reply cap (the notice must reach a flooding
      // sender); after that, silence (a loop with an auto-responder dies out).
      if (inbound === this.settings.ratePerMin + 1)
        await this.deliver(turn, this.locales.t(turn.lang, 'sms.mo.rateLimited'));
      log.warn('inbound sms rate limit reached', { from: maskMsisdn(msisdn), count: inbound });
      return 'rate-limited';
    }
    if (!parsed.ok) {
      if (parsed.problem.code !== 'unknownCommand' && PURCHASE_COMMANDS.has(parsed.problem.command))
        await this.dropPendingQuote(turn);
      await turn.say('sms.mo.helpWithReason', {
        reason: this.problemText(lang, parsed.problem),
        help: this.help(lang),
      });
      return 'refused';
    }
    return this.run(turn, parsed.command, ctx);
  }

  private async run(turn: Turn, command: SmsCommand, ctx: CallContext): Promise<ConversationOutcome> {
    if (command.kind === 'buy' || command.kind === 'sell') {
      const pending = await this.store.peekQuote(turn.msisdn);
      // This message was quoted already (its job is running again): the same quote, not a new code.
      if (pending?.source?.key === turn.key) {
        await turn.sayText(pending.source.text);
        return 'quoted';
      }
      await this.dropPendingQuote(turn);
    }
    switch (command.kind) {
      case 'buy':
        return this.quote(turn, command, ctx, null);
      case 'sell': {
        const agent = await this.activeAgent(turn);
        return agent ? this.quote(turn, command, ctx, agent) : 'refused';
      }
      case 'yes':
        return this.buy(turn, command.code);
      case 'balance':
      case 'sales':
      case 'pinChange':
      case 'block':
        return this.agentCommand(turn, command);
      case 'no': {
        const cancelled = await this.store.cancelQuote(turn.msisdn, command.code);
        await turn.say(cancelled ? 'sms.mo.cancelled' : 'sms.mo.nothingToCancel');
        return 'answered';
      }
      case 'token':
        await turn.sayText(await this.lastTokens(turn, command.identifier));
        return 'answered';
      case 'lang': {
        const tag = this.locales.meta(command.language).tag;
        await this.services.language.set(turn.msisdn, tag);
        turn.lang = tag;
        await turn.say('sms.mo.languageSaved');
        return 'answered';
      }
      case 'help':
        await turn.sayText(this.help(turn.lang));
        return 'answered';
    }
  }

  /** Validate the command's purchase with the service and send the quote with its code. */
  private async quote(
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
    const label = this.identifierLabel(lang, product);
    let providerCode: string;
    let identifier: string;
    if (command.product === 'AIRTIME') {
      const provider = this.airtimeProvider(product, command.network);
      if (provider.kind !== 'one') {
        const networks = product.providers.map((p) => p.code).join(', ');
        const keyword = Keywords.first(this.locales, this.locales.resolve(lang), 'AIR');
        await (provider.kind === 'unknown'
          ? turn.say('sms.mo.unknownNetwork', { network: command.network ?? '', networks })
          : turn.say('sms.mo.chooseNetwork', { keyword, networks }));
        return 'refused';
      }
      providerCode = provider.code;
      const region = regionFromLanguageTag(lang, this.settings.defaultRegion as CountryCode);
      const typed = command.kind === 'sell' ? command.customer : command.number;
      const number =
        typed === null ? { ok: true as const, e164: turn.msisdn } : normaliseMsisdn(typed, region);
      if (!number.ok || !validateIdentifier(product.identifier, number.e164).ok) {
        await turn.sayProblem(this.problemText(lang, { code: 'phone', command: 'AIR' }));
        return 'refused';
      }
      identifier = number.e164;
    } else {
      providerCode = product.providers[0].code;
      identifier = command.identifier;
      const check = validateIdentifier(product.identifier, identifier);
      if (!check.ok) {
        const key =
          check.reason === 'pattern'
            ? 'sms.mo.reason.identifierPattern'
            : check.min !== undefined && check.min === check.max
              ? 'sms.mo.reason.identifierExact'
              : check.min !== undefined && check.max !== undefined
                ? 'sms.mo.reason.identifierLength'
                : 'sms.mo.reason.identifierPattern';
        await turn.sayProblem(
          this.locales.t(
            lang,
            key,
            this.paramsOf(lang, key, { label: capitalise(label), min: check.min ?? 0, max: check.max ?? 0 }),
          ),
        );
        return 'refused';
      }
    }
    let beneficiary = command.product === 'AIRTIME' ? identifier : turn.msisdn;
    if (command.kind === 'sell' && command.product !== 'AIRTIME') {
      const region = regionFromLanguageTag(lang, this.settings.defaultRegion as CountryCode);
      const customer = normaliseMsisdn(command.customer, region);
      if (!customer.ok) {
        await turn.sayProblem(this.problemText(lang, { code: 'phone', command: 'SELL' }));
        return 'refused';
      }
      beneficiary = customer.e164;
    }
    const intent: PurchaseIntent = {
      productType: command.product,
      providerCode,
      subscriberIdentifier: identifier,
      amount: { currency: account.currency, minor: command.amountMinor },
      // An agent funded by an account of its own sells from it.
      debitedAccountId: agent?.funding.kind === 'account' ? agent.funding.debitedAccountId : account.id,
      // Airtime goes to the number named (or the sender's own); everything else to the sender —
      // or, sold by an agent, to the customer.
      beneficiaryMsisdn: beneficiary,
      requesterMsisdn: turn.msisdn,
      language: lang,
      channel: 'SMS',
      ...(agent && { agent: { msisdn: agent.msisdn } }),
    };
    if (agent) {
      const refused = await this.services.agents!.float.checkSale(agent, command.amountMinor);
      if (refused) return this.saleRefused(turn, refused);
    }
    const refusal = await this.services.checkSpend(intent);
    if (refusal) {
      const text = refusalText(refusal);
      await turn.say(text.key, text.params);
      return 'refused';
    }
    let tx: Transaction;
    try {
      tx = await this.services.quote(purchaseRequest(intent), ctx);
    } catch (error) {
      return this.quoteRefused(turn, intent, errorInfo(error));
    }
    if (agent) {
      // The float pays the total (charges included): a quote it cannot pay is not sent.
      const refused = await this.services.agents!.float.checkSale(agent, tx.total.minor);
      if (refused) return this.saleRefused(turn, refused);
    }
    const quote: PendingQuote = {
      id: randomUUID(),
      code: String(randomInt(1000, 10000)),
      expiresAt: this.clock() + this.settings.quoteTtlS * 1000,
      intent: { ...intent, subscriberDetails: tx.subscriberDetails },
      total: tx.total,
    };
    const text = agent
      ? await this.saleQuoteText(lang, quote, tx, agent)
      : this.quoteText(lang, quote, tx, product);
    await this.store.putQuote(turn.msisdn, { ...quote, source: { key: turn.key, text } }, QUOTES_KEPT_MS);
    await turn.sayText(text);
    log.info('sms quote sent', {
      smsKey: turn.key,
      from: maskMsisdn(turn.msisdn),
      product: intent.productType,
    });
    return 'quoted';
  }

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
    else {
      const reasonKey = `reason.${info.code}`;
      // The provider's own words help where our catalogue has none (e.g. "only once the debt is paid").
      const reason =
        this.locales.template(lang, reasonKey) !== undefined ? this.locales.t(lang, reasonKey) : info.message;
      await turn.say('sms.mo.refused', {
        product: this.productName(lang, intent.productType),
        identifier: intent.subscriberIdentifier,
        reason,
      });
    }
    return 'refused';
  }

  /**
   * A new purchase command replaces the pending quote, also when it is refused: a bare YES must
   * never buy what the sender has moved on from.
   */
  private async dropPendingQuote(turn: Turn): Promise<void> {
    if (await this.store.cancelQuote(turn.msisdn, null))
      log.info('pending sms quote replaced by a new command', { smsKey: turn.key });
  }

  /** YES: claim the pending quote once, and hand it to the desk (idempotent by the quote's id). */
  private async buy(turn: Turn, code: string | null): Promise<ConversationOutcome> {
    // An agent's sale: the PIN (checked at the intake), then the float holds the total — both
    // before the quote is claimed, so a refusal leaves it pending for a corrected YES.
    const pending = await this.store.peekQuote(turn.msisdn);
    let held: { agent: Agent; key: string } | null = null;
    if (
      pending?.intent.agent &&
      (code === null || pending.code === code) &&
      pending.expiresAt >= this.clock()
    ) {
      const agent = await this.pinChecked(turn, pending.code);
      if (!agent) return 'refused';
      const key = `sms:${pending.id}`;
      const reserved = await this.services.agents!.float.reserve(agent, key, pending.total.minor);
      if (reserved.status === 'insufficient' || reserved.status === 'over_limit')
        return this.saleRefused(turn, reserved);
      held = { agent, key };
    }
    const claim = await this.store.claimQuote(turn.msisdn, code, this.clock(), QUOTES_KEPT_MS);
    // The quote expired or was replaced between the peek and the claim: nothing is sold, the hold goes back.
    if (held && claim.kind !== 'claimed' && claim.kind !== 'bought')
      await this.services.agents!.float.release(held.agent.msisdn, held.key);
    if (claim.kind === 'none') {
      const example = `${Keywords.first(this.locales, this.locales.resolve(turn.lang), 'ELEC')} 01234567890 100`;
      await turn.say('sms.mo.noQuote', { example });
      return 'refused';
    }
    if (claim.kind === 'mismatch' || claim.kind === 'expired') {
      await turn.say('sms.mo.unknownCode', {
        code: code ?? (claim.kind === 'expired' ? claim.quote.code : ''),
      });
      return 'refused';
    }
    // Also for `bought`: a job that claimed and then failed before the desk wrote the purchase
    // runs again and finds it claimed; creating with the same key is a no-op when it exists.
    let record: PurchaseRecord;
    try {
      record = await this.services.desk.create(claim.quote.intent, `sms:${claim.quote.id}`);
    } catch (error) {
      // A limit reached since the quote (another purchase meanwhile): nothing was bought.
      if (!(error instanceof SpendRefusedError)) throw error;
      if (held) await this.services.agents!.float.release(held.agent.msisdn, held.key);
      const text = refusalText(error.refusal);
      await turn.say(text.key, text.params);
      return 'refused';
    }
    if (claim.kind === 'claimed') {
      log.info('sms purchase handed to the desk', { smsKey: turn.key, purchaseId: record.id });
      return 'bought';
    }
    await turn.say(record.state === 'succeeded' ? 'sms.mo.alreadyBought' : 'sms.mo.alreadyBoughtPending', {
      reference: record.result?.reference ?? record.externalReference,
    });
    return 'already-bought';
  }

  /** The sender as an active agent, or null after saying why not. */
  private async activeAgent(turn: Turn): Promise<Agent | null> {
    const agent = await this.services.agents?.registry.get(turn.msisdn);
    if (!agent) {
      await turn.say('sms.agent.notAgent');
      return null;
    }
    if (agent.status === 'disabled') {
      await turn.say('sms.agent.disabled');
      return null;
    }
    if (agent.status === 'locked' && agent.lockedUntil) {
      await turn.say('sms.agent.locked', { until: this.localTime(agent.lockedUntil) });
      return null;
    }
    return agent;
  }

  /** The PIN verdict of an agent command, answered when it is not a pass; the agent when it is. */
  private async pinChecked(turn: Turn, code: string | null): Promise<Agent | null> {
    const verdict = turn.pin;
    if (!verdict) {
      const yes = Keywords.first(this.locales, this.locales.resolve(turn.lang), 'YES');
      await turn.say('sms.agent.pinNeeded', { yes, code: code ?? '' });
      return null;
    }
    switch (verdict.status) {
      case 'ok':
        if (verdict.mustChangePin) {
          await turn.say('sms.agent.mustChangePin');
          return null;
        }
        return this.activeAgent(turn);
      case 'wrong':
        await turn.say('sms.agent.wrongPin', { left: verdict.attemptsLeft });
        return null;
      case 'locked':
        await turn.say('sms.agent.locked', { until: this.localTime(verdict.until) });
        return null;
      case 'disabled':
        await turn.say('sms.agent.disabled');
        return null;
      default:
        await turn.say('sms.agent.notAgent');
        return null;
    }
  }

  /** BAL, SALES, PIN and BLOCK: only from a registered agent's number. */
  private async agentCommand(
    turn: Turn,
    command: Extract<SmsCommand, { kind: 'balance' | 'sales' | 'pinChange' | 'block' }>,
  ): Promise<ConversationOutcome> {
    const agents = this.services.agents;
    if (command.kind === 'block') {
      const agent = await agents?.registry.get(turn.msisdn);
      if (!agent) {
        await turn.say('sms.agent.notAgent');
        return 'refused';
      }
      // A lost or stolen phone: no PIN asked, the account stops at once.
      await agents!.registry.disable(turn.msisdn, 'blocked');
      log.warn('agent blocked by SMS', { agent: maskMsisdn(turn.msisdn) });
      await turn.say('sms.agent.blocked');
      return 'answered';
    }
    if (command.kind === 'pinChange') {
      const verdict = turn.pin;
      if (verdict?.status === 'changed') await turn.say('sms.agent.pinChanged');
      else if (verdict?.status === 'invalid')
        await turn.say('sms.agent.pinRefused', { reason: verdict.problem });
      else await this.pinChecked(turn, null);
      return verdict?.status === 'changed' ? 'answered' : 'refused';
    }
    const agent = await this.pinChecked(turn, null);
    if (!agent) return 'refused';
    if (command.kind === 'balance') {
      const allowance = await agents!.float.allowance(agent);
      if (agent.funding.kind === 'float') {
        const balance = await agents!.float.balance(agent.msisdn);
        await turn.say('sms.agent.balance', {
          available: formatMoney(agents!.float.money(balance.availableMinor)),
          held: formatMoney(agents!.float.money(balance.heldMinor)),
        });
      } else
        await turn.say('sms.agent.balanceAccount', {
          account: agent.funding.debitedAccountId,
          count: allowance.today.count,
          value: formatMoney(agents!.float.money(allowance.today.valueMinor)),
        });
      return 'answered';
    }
    const sales = (await this.services.desk.listByMsisdn(agent.msisdn, { limit: 50 }))
      .filter((r) => r.intent.agent?.msisdn === agent.msisdn)
      .slice(0, 5);
    await turn.sayText(
      sales.length === 0
        ? this.locales.t(turn.lang, 'sms.agent.salesNone')
        : sales
            .map((r) =>
              this.locales.t(turn.lang, 'sms.agent.salesItem', {
                date: localDay(new Date(r.createdAt), this.settings.timeZone),
                product: this.productName(turn.lang, r.intent.productType),
                identifier: r.intent.subscriberIdentifier,
                total: formatMoney(r.result?.total ?? r.intent.amount),
                state: r.state,
                reference: r.result?.reference ?? r.externalReference,
              }),
            )
            .join('\n'),
    );
    return 'answered';
  }

  /** A sale refused by the agent's float or limits, named (the same words as on USSD). */
  private async saleRefused(
    turn: Turn,
    refused: Parameters<typeof saleRefusalOf>[1],
  ): Promise<ConversationOutcome> {
    const refusal = saleRefusalOf(this.services.agents!.float, refused);
    if (refusal) {
      const text = refusalText(refusal);
      await turn.say(text.key, text.params);
    }
    return 'refused';
  }

  private async saleQuoteText(
    lang: string,
    quote: PendingQuote,
    tx: Transaction,
    agent: Agent,
  ): Promise<string> {
    const { intent } = quote;
    const params = {
      product: this.productName(lang, intent.productType),
      identifier: intent.subscriberIdentifier,
      // The provider's name for the meter or account, if any (airtime has none).
      name: tx.subscriberDetails?.trim() ? ` ${tx.subscriberDetails.trim()}` : '',
      customer: intent.beneficiaryMsisdn,
      amount: formatMoney(intent.amount),
      charges: formatMoney(tx.charge),
      total: formatMoney(tx.total),
      yes: Keywords.first(this.locales, this.locales.resolve(lang), 'YES'),
      code: quote.code,
      minutes: Math.max(1, Math.round(this.settings.quoteTtlS / 60)),
    };
    if (agent.funding.kind !== 'float') return this.locales.t(lang, 'sms.agent.quoteNoFloat', params);
    const balance = await this.services.agents!.float.balance(agent.msisdn);
    const after = this.services.agents!.float.money(balance.availableMinor - tx.total.minor);
    return this.locales.t(lang, 'sms.agent.quote', { ...params, float: formatMoney(after) });
  }

  private localTime(iso: string): string {
    return localTime(new Date(iso), this.settings.timeZone);
  }

  /** The last purchases' tokens, newest first, optionally for one identifier. */
  private async lastTokens(turn: Turn, identifier: string | null): Promise<string> {
    const { lang } = turn;
    const records = (await this.services.desk.listByMsisdn(turn.msisdn, { state: 'succeeded', limit: 50 }))
      .filter(
        (r) =>
          r.intent.productType !== 'AIRTIME' &&
          (identifier === null || r.intent.subscriberIdentifier === identifier),
      )
      .slice(0, TOKENS_SHOWN);
    if (records.length === 0)
      return identifier === null
        ? this.locales.t(lang, 'sms.mo.tokensNone')
        : this.locales.t(lang, 'sms.mo.tokensNoneFor', { identifier });
    return records.map((r) => this.tokenItem(lang, r)).join('\n\n');
  }

  private tokenItem(lang: string, record: PurchaseRecord): string {
    const tokens = tokensForDisplay(parseTokens(record.result?.rawToken ?? null)).map((t) =>
      t.description ? `${t.description}: ${t.value}` : t.value,
    );
    return this.locales.t(lang, 'sms.mo.tokenItem', {
      date: localDay(new Date(record.settledAt ?? record.createdAt), this.settings.timeZone),
      product: this.productName(lang, record.intent.productType),
      identifier: record.intent.subscriberIdentifier,
      tokens: tokens.join('\n'),
      total: formatMoney(record.result?.total ?? record.intent.amount),
      reference: record.result?.reference ?? record.externalReference,
    });
  }

  private quoteText(lang: string, quote: PendingQuote, tx: Transaction, product: VasProduct): string {
    const { intent } = quote;
    const common = {
      product: this.productName(lang, intent.productType),
      identifier: intent.subscriberIdentifier,
      amount: formatMoney(intent.amount),
      charges: formatMoney(tx.charge),
      total: formatMoney(tx.total),
      yes: Keywords.first(this.locales, this.locales.resolve(lang), 'YES'),
      code: quote.code,
      minutes: Math.max(1, Math.round(this.settings.quoteTtlS / 60)),
    };
    if (intent.productType === 'AIRTIME') {
      const provider =
        product.providers.find((p) => p.code === intent.providerCode)?.code ?? intent.providerCode;
      const { product: _unused, ...airtime } = common;
      return this.locales.t(lang, 'sms.mo.quoteAirtime', { ...airtime, provider });
    }
    const name = tx.subscriberDetails?.trim() || null;
    const units = tx.units;
    if (name && units) return this.locales.t(lang, 'sms.mo.quote', { ...common, name, units });
    if (units) return this.locales.t(lang, 'sms.mo.quoteNoName', { ...common, units });
    if (name) return this.locales.t(lang, 'sms.mo.quoteNoUnits', { ...common, name });
    return this.locales.t(lang, 'sms.mo.quoteBasic', common);
  }

  /** The grammar in the sender's language, keywords as that language writes them. */
  help(lang: string): string {
    const l = this.locales.resolve(lang);
    const k = (c: CommandName): string => Keywords.first(this.locales, l, c);
    return this.locales.t(lang, 'sms.mo.help', {
      elec: k('ELEC'),
      water: k('WATER'),
      air: k('AIR'),
      yes: k('YES'),
      no: k('NO'),
      token: k('TOKEN'),
      lang: k('LANG'),
    });
  }

  /** Why a message is not a command, in the sender's language. */
  problemText(lang: string, problem: ParseProblem): string {
    const l = this.locales.resolve(lang);
    switch (problem.code) {
      case 'unknownCommand':
        return this.locales.t(lang, 'sms.mo.reason.unknownCommand');
      case 'usage':
        return this.locales.t(lang, `sms.mo.reason.usage.${problem.command}`, {
          keyword: Keywords.first(this.locales, l, problem.command),
        });
      case 'amount':
        return this.locales.t(lang, 'sms.mo.reason.amount');
      case 'identifier': {
        const product = problem.command === 'WATER' ? 'WATER' : 'ELECTRICITY';
        return this.locales.t(lang, 'sms.mo.reason.identifier', {
          label: capitalise(this.locales.t(lang, `identifier.label.${product}`)),
        });
      }
      case 'phone':
        return this.locales.t(lang, 'sms.mo.reason.phone');
      case 'quoteCode':
        return this.locales.t(lang, 'sms.mo.reason.quoteCode', {
          keyword: Keywords.first(this.locales, l, 'YES'),
        });
      case 'pin':
        return this.locales.t(lang, 'sms.mo.reason.pin');
      case 'language':
        return this.locales.t(lang, 'sms.mo.reason.language', {
          keyword: Keywords.first(this.locales, l, 'LANG'),
        });
    }
  }

  private airtimeProvider(
    product: VasProduct,
    named: string | null,
  ): { kind: 'one'; code: string } | { kind: 'unknown' } | { kind: 'ask' } {
    if (named === null)
      return product.providers.length === 1
        ? { kind: 'one', code: product.providers[0].code }
        : { kind: 'ask' };
    const wanted = squash(named);
    const match = product.providers.filter(
      (p) =>
        squash(p.code) === wanted || squash(p.name).startsWith(wanted) || squash(p.name).includes(wanted),
    );
    const exact = match.find((p) => squash(p.code) === wanted);
    if (exact) return { kind: 'one', code: exact.code };
    return match.length === 1 ? { kind: 'one', code: match[0].code } : { kind: 'unknown' };
  }

  private productName(lang: string, productType: string): string {
    return this.locales.t(lang, `product.${productType}`);
  }

  private identifierLabel(lang: string, product: VasProduct): string {
    return this.locales.t(lang, `identifier.label.${product.productType}`);
  }

  /** Only the params a template names (strict catalogues refuse extras). */
  private paramsOf(
    lang: string,
    key: string,
    all: Record<string, string | number>,
  ): Record<string, string | number> {
    const template = this.locales.template(lang, key) ?? '';
    return Object.fromEntries(Object.entries(all).filter(([name]) => template.includes(`{${name}}`)));
  }

  /** Queue a reply unless the sender had enough replies this minute. */
  async send(turn: Turn, message: string): Promise<void> {
    const replies = await this.store.hit('replies', turn.msisdn, MINUTE_MS, this.clock());
    if (replies > this.settings.repliesPerMin) {
      log.warn('sms reply limit reached: not answered', { smsKey: turn.key, to: maskMsisdn(turn.msisdn) });
      return;
    }
    await this.deliver(turn, message);
  }

  /** Queue the reply to this message (its id makes a retried job reply once). */
  private async deliver(turn: Turn, message: string): Promise<void> {
    await this.services.reply({ id: `mo:${turn.key}`, to: turn.msisdn, message: transliterate(message) });
  }
}

/** One message being answered: who, in which language, and its key. */
class Turn {
  constructor(
    private readonly conversation: SmsConversation,
    private readonly locales: Locales,
    readonly msisdn: string,
    public lang: string,
    readonly key: string,
    /** The intake's verdict on the PIN the message carried (agents), if any. */
    readonly pin?: PinVerdict,
  ) {}

  say(key: string, params: Record<string, string | number> = {}): Promise<void> {
    return this.sayText(this.locales.t(this.lang, key, params));
  }

  sayText(message: string): Promise<void> {
    return this.conversation.send(this, message);
  }

  /** A refusal with the grammar after it. */
  sayProblem(reason: string): Promise<void> {
    return this.say('sms.mo.helpWithReason', { reason, help: this.conversation.help(this.lang) });
  }
}

function squash(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
