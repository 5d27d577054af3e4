import { componentLogger } from '../observability/logger';
import { AgentExistsError, AgentInputError } from './errors';
import { NO_LOCKOUTS } from './lockout';
import { hashPin, oneTimePin } from './pin';
import type { AgentRecords } from './registry-records';
import { publicAgent, type Agent, type AgentFunding, type AgentLimits, type AgentRecord } from './types';

/**
 * Enrolment: an agent (a retailer with its dealer, a dealer from the start) or an assistant at an
 * outlet registered with a one-time PIN, every field checked before anything is written.
 */

const log = componentLogger('agents');

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

export class AgentEnrolment {
  constructor(private readonly records: AgentRecords) {}

  /** Register an agent with a one-time PIN, returned here once and never again. */
  async add(input: NewAgent): Promise<{ agent: Agent; oneTimePin: string }> {
    const msisdn = this.records.msisdnOf(input.msisdn);
    let dealerMsisdn: string | null = null;
    if (input.dealer !== undefined) {
      dealerMsisdn = this.records.msisdnOf(input.dealer);
      if (dealerMsisdn === msisdn) throw new AgentInputError('dealer', 'an agent cannot be its own dealer');
      const dealer = await this.records.store.get(dealerMsisdn);
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
    const msisdn = this.records.msisdnOf(input.msisdn);
    const outletMsisdn = this.records.msisdnOf(input.outlet);
    if (outletMsisdn === msisdn) throw new AgentInputError('msisdn', 'an outlet cannot be its own assistant');
    const outlet = await this.records.store.get(outletMsisdn);
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
    const language = input.language ?? this.records.options.defaultLanguage ?? 'en';
    if (typeof language !== 'string' || !/^[a-z]{2,3}$/.test(language))
      throw new AgentInputError('language', 'language must be a language code such as en or tn');
    const funding = checkFunding(input.funding);
    const limits = checkLimits(input.limits);
    const pin = oneTimePin();
    const now = this.records.clock().toISOString();
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
      pin: { ...(await hashPin(pin, this.records.secret, this.records.scrypt)), version: 1 },
    };
    if (!(await this.records.store.create(record))) throw new AgentExistsError(msisdn);
    log.info('agent registered', {
      msisdn,
      funding: funding.kind,
      ...(links.dealerMsisdn && { dealer: links.dealerMsisdn }),
      ...(links.outletMsisdn && { outlet: links.outletMsisdn }),
      ...(input.isDealer === true && { isDealer: true }),
    });
    return { agent: publicAgent(record), oneTimePin: pin };
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
