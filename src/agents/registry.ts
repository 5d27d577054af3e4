import { componentLogger } from '../observability/logger';
import { normaliseMsisdn, type CountryCode } from '../phone';
import { AgentConflictError, AgentExistsError, AgentInputError, AgentNotFoundError } from './errors';
import { asOf, NO_LOCKOUTS } from './lockout';
import { DEFAULT_SCRYPT, hashPin, oneTimePin, type AgentPinsOptions, type PinSecret } from './pin';
import { pinSecretFor } from './pin-secret';
import type { AgentStore } from './store';
import {
  publicAgent,
  type Agent,
  type AgentFunding,
  type AgentLimits,
  type AgentRecord,
  type DisabledReason,
  type ScryptParams,
} from './types';

/**
 * The agent registry: who is an agent and whether it may sell. Registration (a retailer with its
 * dealer, a dealer from the start, an assistant at an outlet) with a one-time PIN, the agents
 * read back as of now (a lockout that ran out reads `active`), an operator's disable/enable and
 * dealer flag, the agent's own `BLOCK`, and a dealer's or an outlet owner's supervision of its
 * retailers and assistants. It hands out `Agent`s (never the PIN hash). PIN checks and changes
 * are `AgentPins` (pin.ts), over the same store.
 */

const log = componentLogger('agents');

export interface AgentRegistryOptions extends AgentPinsOptions {
  /** Region of national numbers typed by operators. */
  region: CountryCode;
  /** Language of a new agent when none is given. */
  defaultLanguage?: string;
}

export interface NewAgent {
  /** As typed: `+26771234567`, `26771234567` or the national `71234567`. */
  msisdn: string;
  name: string;
  language?: string;
  funding: AgentFunding;
  limits?: AgentLimits;
  /** A retailer: its dealer's number (an agent, not an assistant, not itself); it becomes a dealer. */
  dealer?: string;
  /** A dealer from the start: "My retailers" on its menu before it has any. */
  isDealer?: boolean;
  /** The agent's own commission policy (`AGENT_COMMISSION`'s grammar, checked by the caller, who knows the currency). */
  commission?: string;
  /** A dealer's share of its retailers' commission (basis points). */
  dealerShareBp?: number;
}

/** An assistant at an outlet: its own number and PIN, the outlet's float. */
export interface NewAssistant {
  /** The outlet: an agent's number (not itself an assistant). */
  outlet: string;
  msisdn: string;
  name?: string;
  language?: string;
}

const MAX_NAME = 80;

/** Check the optional limit overrides: whole, positive, safe. */
export function checkLimits(limits: AgentLimits | undefined): AgentLimits {
  const out: AgentLimits = {};
  for (const field of ['maxSaleMinor', 'maxDayValueMinor', 'maxDayCount'] as const) {
    const value = limits?.[field];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new AgentInputError(field, `${field} must be a positive whole number`);
    out[field] = value;
  }
  return out;
}

/** What a dealer (its retailer) or an outlet's owner (its assistant) asked of an agent's status. */
export type SupervisedChange =
  | { status: 'done'; agent: Agent }
  /** Not this supervisor's retailer or assistant. */
  | { status: 'not_yours' }
  /** Disabled by someone else (an operator, lockouts, BLOCK): only they can enable it. */
  | { status: 'not_allowed'; reason: DisabledReason | null };

export class AgentRegistry {
  private readonly store: AgentStore;
  private readonly clock: () => Date;
  private readonly scrypt: ScryptParams;
  private readonly secret: PinSecret;

  constructor(private readonly options: AgentRegistryOptions) {
    this.store = options.store;
    this.clock = options.clock ?? (() => new Date());
    this.scrypt = options.scrypt ?? DEFAULT_SCRYPT;
    this.secret = options.pinSecret ?? pinSecretFor(null, undefined);
  }

  /** An MSISDN as an operator typed it, as E.164 digits; AgentInputError('msisdn') when it is no mobile number. */
  msisdnOf(input: string): string {
    const result = normaliseMsisdn(String(input ?? ''), this.options.region);
    if (!result.ok)
      throw new AgentInputError('msisdn', 'msisdn must be a mobile number (E.164, e.g. 26771234567)');
    return result.e164;
  }

  /** The agent with this E.164 MSISDN, as of now (a lockout that ran out reads `active`); null for anyone else. */
  async get(msisdn: string): Promise<Agent | null> {
    const record = await this.store.get(msisdn);
    return record ? asOf(publicAgent(record), this.clock().getTime()) : null;
  }

  /** Like `get`, for callers that need the agent: AgentNotFoundError otherwise. */
  async require(msisdn: string): Promise<Agent> {
    const agent = await this.get(msisdn);
    if (!agent) throw new AgentNotFoundError(msisdn);
    return agent;
  }

  /** Oldest first. */
  async list(options: { limit?: number; offset?: number } = {}): Promise<Agent[]> {
    const now = this.clock().getTime();
    return (await this.store.list(options)).map((record) => asOf(publicAgent(record), now));
  }

  /** A dealer's retailers, or an outlet's assistants. */
  async linked(link: 'dealer' | 'outlet', msisdn: string): Promise<Agent[]> {
    const now = this.clock().getTime();
    return (await this.store.linked(link, msisdn)).map((record) => asOf(publicAgent(record), now));
  }

  /**
   * The agent whose float a seller sells from: itself, or an assistant's outlet (both must be able
   * to sell: a disabled or locked outlet stops its assistants too). Null: no such agent.
   */
  async floatOwner(seller: Agent): Promise<Agent | null> {
    if (!seller.outletMsisdn) return seller;
    return this.get(seller.outletMsisdn);
  }

  /** Register an agent with a one-time PIN, returned here once and never again. */
  async add(input: NewAgent): Promise<{ agent: Agent; oneTimePin: string }> {
    const msisdn = this.msisdnOf(input.msisdn);
    let dealerMsisdn: string | null = null;
    if (input.dealer !== undefined) {
      dealerMsisdn = this.msisdnOf(input.dealer);
      if (dealerMsisdn === msisdn) throw new AgentInputError('dealer', 'an agent cannot be its own dealer');
      const dealer = await this.store.get(dealerMsisdn);
      if (!dealer) throw new AgentInputError('dealer', 'the dealer must be a registered agent');
      if (dealer.outletMsisdn) throw new AgentInputError('dealer', 'an assistant cannot be a dealer');
    }
    if (
      input.dealerShareBp !== undefined &&
      (!Number.isSafeInteger(input.dealerShareBp) || input.dealerShareBp < 0 || input.dealerShareBp > 10_000)
    )
      throw new AgentInputError('dealerShare', 'dealerShare must be a percentage from 0% to 100%');
    return this.create(msisdn, input, {
      dealerMsisdn,
      outletMsisdn: null,
      commission: input.commission ?? null,
      dealerShareBp: input.dealerShareBp ?? null,
    });
  }

  /**
   * Register an assistant at an outlet: a number of its own with its own one-time PIN and
   * lockout, selling from the outlet's float within the outlet's limits.
   */
  async addAssistant(input: NewAssistant): Promise<{ agent: Agent; oneTimePin: string }> {
    const msisdn = this.msisdnOf(input.msisdn);
    const outletMsisdn = this.msisdnOf(input.outlet);
    if (outletMsisdn === msisdn) throw new AgentInputError('msisdn', 'an outlet cannot be its own assistant');
    const outlet = await this.store.get(outletMsisdn);
    if (!outlet) throw new AgentInputError('agent', 'the outlet must be a registered agent');
    if (outlet.outletMsisdn) throw new AgentInputError('agent', 'an assistant cannot have assistants');
    return this.create(
      msisdn,
      {
        msisdn,
        name: input.name ?? `${outlet.name} assistant`,
        language: input.language ?? outlet.language,
        funding: outlet.funding,
      },
      { dealerMsisdn: null, outletMsisdn, commission: null, dealerShareBp: null },
    );
  }

  private async create(
    msisdn: string,
    input: NewAgent,
    links: Pick<AgentRecord, 'dealerMsisdn' | 'outletMsisdn' | 'commission' | 'dealerShareBp'>,
  ): Promise<{ agent: Agent; oneTimePin: string }> {
    const name = typeof input.name === 'string' ? input.name.trim() : '';
    if (name === '' || name.length > MAX_NAME)
      throw new AgentInputError('name', `name must be 1 to ${MAX_NAME} characters`);
    const language = input.language ?? this.options.defaultLanguage ?? 'en';
    if (typeof language !== 'string' || !/^[a-z]{2,3}$/.test(language))
      throw new AgentInputError('language', 'language must be a language code such as en or tn');
    const funding = checkFunding(input.funding);
    const limits = checkLimits(input.limits);
    const pin = oneTimePin();
    const now = this.clock().toISOString();
    const record: AgentRecord = {
      msisdn,
      name,
      language,
      status: 'active',
      disabledReason: null,
      ...NO_LOCKOUTS,
      mustChangePin: true,
      funding,
      limits,
      // Only what is set: an agent of its own reads as it always has.
      ...Object.fromEntries(Object.entries(links).filter(([, value]) => value !== null)),
      ...(input.isDealer === true && { dealer: true }),
      createdAt: now,
      updatedAt: now,
      pin: { ...(await hashPin(pin, this.secret, this.scrypt)), version: 1 },
    };
    if (!(await this.store.create(record))) throw new AgentExistsError(msisdn);
    log.info('agent registered', {
      msisdn,
      funding: funding.kind,
      ...(links.dealerMsisdn && { dealer: links.dealerMsisdn }),
      ...(links.outletMsisdn && { outlet: links.outletMsisdn }),
      ...(input.isDealer === true && { isDealer: true }),
    });
    return { agent: publicAgent(record), oneTimePin: pin };
  }

  /**
   * A dealer disables or enables one of its retailers, an outlet's owner one of its assistants.
   * Enabling is allowed only for what the same kind of supervisor disabled (never an agent an
   * operator, lockouts or BLOCK disabled). Checked on the row under its lock.
   */
  async supervise(
    supervisor: string,
    target: string,
    status: 'active' | 'disabled',
  ): Promise<SupervisedChange> {
    const found = await this.store.get(target);
    if (!found) return { status: 'not_yours' };
    const role: DisabledReason | null =
      found.dealerMsisdn === supervisor ? 'dealer' : found.outletMsisdn === supervisor ? 'owner' : null;
    if (!role) return { status: 'not_yours' };
    let refusedReason: DisabledReason | null = null;
    const changed = await this.store.setStatusIf(
      target,
      { status, reason: status === 'disabled' ? role : null, now: this.clock() },
      (current) => {
        const mine = (role === 'dealer' ? current.dealerMsisdn : current.outletMsisdn) === supervisor;
        if (!mine) return false;
        if (status === 'disabled') return current.status !== 'disabled' || current.disabledReason === role;
        const ok = current.status !== 'disabled' || current.disabledReason === role;
        if (!ok) refusedReason = current.disabledReason;
        return ok;
      },
    );
    if (!changed) return { status: 'not_yours' };
    if (changed.status === 'refused')
      return changed.record.dealerMsisdn === supervisor || changed.record.outletMsisdn === supervisor
        ? { status: 'not_allowed', reason: refusedReason ?? changed.record.disabledReason }
        : { status: 'not_yours' };
    log.warn(
      `agent ${status === 'disabled' ? 'disabled' : 'enabled'} by its ${role === 'dealer' ? 'dealer' : 'owner'}`,
      {
        msisdn: target,
        by: supervisor,
      },
    );
    return { status: 'done', agent: publicAgent(changed.record) };
  }

  /** Disable at once: by an operator, or by the agent itself (`BLOCK`, a lost phone). */
  async disable(msisdn: string, reason: 'operator' | 'blocked' = 'operator'): Promise<Agent> {
    const record = await this.store.setStatus(msisdn, {
      status: 'disabled',
      reason,
      now: this.clock(),
    });
    if (!record) throw new AgentNotFoundError(msisdn);
    log.warn('agent disabled', { msisdn, reason });
    return publicAgent(record);
  }

  /** Enable, clearing wrong attempts and lockouts (the PIN stays as it is). */
  async enable(msisdn: string): Promise<Agent> {
    const record = await this.store.setStatus(msisdn, {
      status: 'active',
      reason: null,
      now: this.clock(),
    });
    if (!record) throw new AgentNotFoundError(msisdn);
    log.info('agent enabled', { msisdn });
    return publicAgent(record);
  }

  /**
   * An operator makes an agent a dealer (its menu offers "My retailers" before it has any) or
   * not: refused for an assistant, and turning off while any agent names it its dealer.
   */
  async setDealer(msisdn: string, dealer: boolean, by: string): Promise<Agent> {
    const written = await this.store.setDealer(msisdn, dealer, this.clock());
    if (!written) throw new AgentNotFoundError(msisdn);
    if (written.status === 'assistant')
      throw new AgentInputError('msisdn', 'an assistant cannot be a dealer');
    if (written.status === 'has_retailers')
      throw new AgentConflictError(
        'has_retailers',
        `the agent has ${written.retailers} retailer(s): it stays a dealer while any agent names it its dealer`,
      );
    if (written.status === 'written')
      log.warn(dealer ? 'agent made a dealer' : 'agent no longer a dealer', { msisdn, by });
    return publicAgent(written.record);
  }
}

function checkFunding(funding: AgentFunding | undefined): AgentFunding {
  if (funding?.kind === 'float') return { kind: 'float' };
  if (funding?.kind === 'account') {
    const id = funding.debitedAccountId;
    if (!Number.isSafeInteger(id) || id <= 0)
      throw new AgentInputError('debitedAccountId', 'debitedAccountId must be a purchase-service account id');
    return { kind: 'account', debitedAccountId: id };
  }
  throw new AgentInputError(
    'funding',
    'funding must be {kind: "float"} or {kind: "account", debitedAccountId}',
  );
}
