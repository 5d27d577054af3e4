import { normaliseMsisdn, type CountryCode } from '../phone';
import { AgentInputError, AgentNotFoundError } from './errors';
import { asOf, DEFAULT_LOCKOUT, type LockoutPolicy } from './lockout';
import { DEFAULT_SCRYPT, type PinSecret } from './pin';
import { pinSecretFor } from './pin-secret';
import type { AgentStore } from './store';
import { publicAgent, type Agent, type ScryptParams } from './types';

/**
 * What every registry job shares: the store, the clock, the PIN hashing settings, how an
 * operator's MSISDN is read, and the agents read back as of now (a lockout that ran out reads
 * `active`). Enrolment, PINs and status changes each build on this.
 */

export interface AgentRegistryOptions {
  store: AgentStore;
  /** Zone of the local day the lockouts of a day are counted in. */
  timeZone: string;
  /** Region of national numbers typed by operators. */
  region: CountryCode;
  /** Language of a new agent when none is given. */
  defaultLanguage?: string;
  clock?: () => Date;
  scrypt?: ScryptParams;
  lockout?: LockoutPolicy;
  /** The pepper of every PIN hash (src/agents/pin-secret.ts); unset: the process's in-memory one. */
  pinSecret?: PinSecret;
}

/** The registry's settings and store, and the reads every job uses. */
export class AgentRecords {
  readonly store: AgentStore;
  readonly clock: () => Date;
  readonly scrypt: ScryptParams;
  readonly lockout: LockoutPolicy;
  readonly secret: PinSecret;

  constructor(readonly options: AgentRegistryOptions) {
    this.store = options.store;
    this.clock = options.clock ?? (() => new Date());
    this.scrypt = options.scrypt ?? DEFAULT_SCRYPT;
    this.lockout = options.lockout ?? DEFAULT_LOCKOUT;
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
}
