import { createHash } from 'node:crypto';
import { transliterate, type Locales } from '../../i18n';
import { componentLogger, maskMsisdn } from '../../observability/logger';
import { normaliseMsisdn, type CountryCode } from '../../phone';
import type { PurchaseDesk, PurchaseRecord } from '../../purchases/types';
import type { Agent } from '../../agents';
import type { AgentSide } from '../../sales/agent-side';
import { buySale, type BuyParts } from '../../sales/buy';
import { refusalText, SpendRefusedError } from '../../spend/rules';
import { formatMoney } from '../../vas/money';
import type { CallContext } from '../../vas/port';
import { parseSmsCommand, type ParseProblem, type SmsCommand } from '../commands/grammar';
import { Keywords, type CommandName } from '../commands/keywords';
import type { InboundSms } from '../inbound/types';
import { AgentCommands } from './agent-commands';
import { NetworkCommands, type NetworkServices } from './network-commands';
import { QUOTES_KEPT_MS, SmsQuotes, type SavedMeters, type SmsQuoteServices } from './quote';
import type { SeenKey, SmsMoStore } from './store';
import { MoTexts } from './texts';
import { Turn, type ConversationOutcome } from './turn';

export type { ConversationOutcome } from './turn';

const log = componentLogger('sms-mo');

/** What the conversation may call: reads, the quote, the desk, the language preference, the reply queue. */
export interface SmsConversationServices extends SmsQuoteServices {
  desk: Pick<PurchaseDesk, 'create' | 'listByMsisdn'>;
  language: { get(msisdn: string): Promise<string | null>; set(msisdn: string, tag: string): Promise<void> };
  /** Field agents' side of a sale (registry, float); absent: agent commands are answered "not an agent". */
  agents?: AgentSide;
  /** Who collects a subscriber's money before the confirm; absent: the operator's wallet pays. */
  payments?: BuyParts['payments'];
  /** Queue one reply SMS; `id` de-duplicates (the same inbound message never gets two replies). */
  reply(sms: { id: string; to: string; message: string }): Promise<void>;
  /** An agent's own top-up by the payment provider (TOPUP); absent: not available. */
  agentTopUp?: NetworkServices['topUp'];
  /** The number's saved meters (METERS; `ELEC 100`); absent: none are kept. */
  savedMeters?: SavedMeters;
}

/** The products whose identifiers are saved, in the order METERS lists them. */
const SAVED_PRODUCTS = ['ELECTRICITY', 'WATER'] as const;

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
  /**
   * A bare `YES` buys the pending quote (`SMS_YES_WITHOUT_CODE`). Off: only `YES <code>` buys —
   * the code proves the sender reads the quote SMS, which a spoofed sender cannot.
   */
  yesWithoutCode: boolean;
}

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
 * quote. It decides; the store keeps what must survive between messages; a sale is quoted
 * (quote.ts over src/sales/quote.ts) and bought (src/sales/buy.ts) as on USSD, through the same
 * confirm-once lifecycle (the quote's id is the idempotency key).
 */
export class SmsConversation {
  private readonly keywords: Keywords;
  private readonly texts: MoTexts;
  private readonly agents: AgentCommands;
  private readonly quotes: SmsQuotes;
  private readonly network: NetworkCommands | undefined;

  constructor(
    private readonly store: SmsMoStore,
    private readonly services: SmsConversationServices,
    private readonly locales: Locales,
    private readonly settings: SmsConversationSettings,
    private readonly clock: () => number = Date.now,
  ) {
    this.keywords = new Keywords(locales);
    this.texts = new MoTexts(locales, settings);
    const network = (this.network =
      services.agents &&
      new NetworkCommands(
        services.agents,
        this.texts,
        {
          // A transfer's receiver is told once (the id names the transfer), in its language.
          notify: (sms) => services.reply({ ...sms, message: transliterate(sms.message) }),
          ...(services.agentTopUp && { topUp: services.agentTopUp }),
        },
        settings.defaultRegion,
      ));
    this.agents = new AgentCommands(services.agents, services.desk, this.texts, network);
    this.quotes = new SmsQuotes(services, services.agents, this.agents, store, this.texts, settings, clock);
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
    // A refused message whose PIN-like numbers the intake masked is answered for what was typed.
    const parsed = sms.refused
      ? { ok: false as const, ...sms.refused }
      : parseSmsCommand(sms.text, this.keywords);
    const stored = await this.services.language.get(msisdn);
    const lang =
      stored ?? (parsed.language ? this.locales.meta(parsed.language).tag : this.settings.defaultLanguage);
    const turn = new Turn(this.texts, (t, message) => this.send(t, message), msisdn, lang, key, sms.pin);

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
        return this.quotes.quote(turn, command, ctx, null);
      case 'sell': {
        const agent = await this.agents.activeAgent(turn);
        return agent ? this.quotes.quote(turn, command, ctx, agent) : 'refused';
      }
      case 'yes':
        return this.buy(turn, command.code);
      case 'balance':
      case 'sales':
      case 'pinChange':
      case 'block':
      case 'transfer':
      case 'network':
      case 'deposit':
      case 'topup':
      case 'summary':
      case 'supervise':
        return this.agents.run(turn, command);
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
      case 'meters':
        await turn.sayText(this.texts.meters(turn.lang, await this.savedMeters(turn.msisdn)));
        return 'answered';
    }
  }

  /** Every saved meter and account of a number, per product, newest first. */
  private async savedMeters(msisdn: string) {
    const saved = this.services.savedMeters;
    if (!saved) return [];
    return (await Promise.all(SAVED_PRODUCTS.map((p) => saved.list(msisdn, p)))).flat();
  }

  /**
   * A new purchase command replaces the pending quote, also when it is refused: a bare YES must
   * never buy what the sender has moved on from.
   */
  private async dropPendingQuote(turn: Turn): Promise<void> {
    if (await this.store.cancelQuote(turn.msisdn, null))
      log.info('pending sms quote replaced by a new command', { smsKey: turn.key });
  }

  /** YES: claim the pending quote once, and buy it (idempotent by the quote's id). */
  private async buy(turn: Turn, code: string | null): Promise<ConversationOutcome> {
    if (code === null && !this.settings.yesWithoutCode) return this.codeNeeded(turn);
    // An agent's sale: the PIN (checked at the intake), then the float holds the total — both
    // before the quote is claimed, so a refusal leaves it pending for a corrected YES.
    const pending = await this.store.peekQuote(turn.msisdn);
    const agentSide = this.services.agents;
    let held: Agent | null = null;
    if (
      pending?.intent.agent &&
      (code === null || pending.code === code) &&
      pending.expiresAt >= this.clock()
    ) {
      const agent = await this.agents.pinChecked(turn, pending.code);
      if (!agent) return 'refused';
      const refused = await agentSide!.hold(agent, `sms:${pending.id}`, pending.total.minor);
      if (refused) return this.agents.refused(turn, refused);
      held = agent;
    }
    const claim = await this.store.claimQuote(turn.msisdn, code, this.clock(), QUOTES_KEPT_MS);
    // The quote expired or was replaced between the peek and the claim: nothing is sold, the hold goes back.
    if (held && pending && claim.kind !== 'claimed' && claim.kind !== 'bought')
      await agentSide!.release(held.msisdn, `sms:${pending.id}`);
    if (claim.kind === 'none') {
      await turn.say('sms.mo.noQuote', { example: this.texts.example(turn.lang) });
      return 'refused';
    }
    if (claim.kind === 'mismatch' || claim.kind === 'expired') {
      await turn.say('sms.mo.unknownCode', {
        code: code ?? (claim.kind === 'expired' ? claim.quote.code : ''),
      });
      return 'refused';
    }
    // Also for `bought`: a job that claimed and then failed before the purchase was written runs
    // again and finds it claimed; buying with the same key is a no-op when it exists. Its hold
    // was taken before the claim, for the agent just checked: the Buy takes none of its own.
    let record: PurchaseRecord;
    try {
      record = await buySale(
        { desk: this.services.desk, agentSide, payments: this.services.payments },
        claim.quote.intent,
        `sms:${claim.quote.id}`,
        // An agent's float holds the total; a subscriber is asked to pay it.
        held || !claim.quote.intent.agent ? claim.quote.total : undefined,
        held ?? undefined,
        // Held above, before the claim: buySale does not hold it again.
        held !== null,
      );
    } catch (error) {
      // A limit reached since the quote (another purchase meanwhile): nothing was bought.
      if (!(error instanceof SpendRefusedError)) throw error;
      const text = refusalText(error.refusal);
      await turn.say(text.key, text.params);
      return 'refused';
    }
    if (claim.kind === 'claimed') {
      log.info('sms purchase handed to the desk', { smsKey: turn.key, purchaseId: record.id });
      // As the USSD dialogue ends: the PIN prompt comes next, the token after it.
      if (record.intent.paymentRequired)
        await turn.say('payment.approve', { amount: formatMoney(claim.quote.total) });
      return 'bought';
    }
    await turn.say(record.state === 'succeeded' ? 'sms.mo.alreadyBought' : 'sms.mo.alreadyBoughtPending', {
      reference: record.result?.reference ?? record.externalReference,
    });
    return 'already-bought';
  }

  /**
   * A bare YES where only the code buys: nothing is claimed (a quote asked meanwhile must not be
   * bought either); the sender is told the code, which goes to the quoted number only.
   */
  private async codeNeeded(turn: Turn): Promise<ConversationOutcome> {
    const pending = await this.store.peekQuote(turn.msisdn);
    const yes = this.texts.keyword(turn.lang, 'YES');
    if (!pending) await turn.say('sms.mo.noQuote', { example: this.texts.example(turn.lang) });
    else if (pending.expiresAt < this.clock()) await turn.say('sms.mo.unknownCode', { code: pending.code });
    else
      await turn.say(pending.intent.agent ? 'sms.agent.pinNeeded' : 'sms.mo.codeNeeded', {
        yes,
        code: pending.code,
      });
    return 'refused';
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
    return records.map((r) => this.texts.tokenItem(lang, r)).join('\n\n');
  }

  /** An agent's day summary SMS (SUMMARY's answer), in the agent's language; null without agents. */
  async summaryText(agent: Agent, day?: string): Promise<string | null> {
    return this.network ? transliterate(await this.network.summaryText(agent.language, agent, day)) : null;
  }

  /** The grammar in the sender's language, keywords as that language writes them. */
  help(lang: string): string {
    return this.texts.help(lang);
  }

  /** Why a message is not a command, in the sender's language. */
  problemText(lang: string, problem: ParseProblem): string {
    return this.texts.problemText(lang, problem);
  }

  /** Queue a reply unless the sender had enough replies this minute. */
  private async send(turn: Turn, message: string): Promise<void> {
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
