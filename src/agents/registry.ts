import { normaliseMsisdn, type CountryCode } from '../phone';
import { componentLogger } from '../observability/logger';
import { AgentExistsError, AgentInputError, AgentNotFoundError } from './errors';
import { asOf, DEFAULT_LOCKOUT, localDay, type AttemptOutcome, type LockoutPolicy } from './lockout';
import {
  DEFAULT_SCRYPT,
  hashPin,
  needsRehash,
  newPinProblem,
  oneTimePin,
  pinMatches,
  type PinProblem,
} from './pin';
import type { AgentStore } from './store';
import {
  publicAgent,
  type Agent,
  type AgentFunding,
  type AgentLimits,
  type AgentRecord,
  type DisabledReason,
  type ScryptParams,
  type StoredPin,
} from './types';

const log = componentLogger('agents');

/** What a PIN check came to. `pinVersion` (ok) binds a later staged PIN change to this check. */
export type PinCheck =
  | { status: 'ok'; mustChangePin: boolean; pinVersion: number }
  | { status: 'wrong'; attemptsLeft: number }
  | { status: 'locked'; until: Date }
  | { status: 'disabled'; reason: DisabledReason }
  | { status: 'not_agent' };

/** A chosen new PIN, hashed: safe to keep in a dialogue between the PIN and its repetition. */
export type PinCandidate = Omit<StoredPin, 'version'>;

/** What a PIN change came to: `invalid` names what is wrong with the new PIN (nothing counted). */
export type PinChange =
  | { status: 'changed' }
  | { status: 'invalid'; problem: PinProblem }
  /** The PIN was replaced meanwhile (an operator reset): nothing written, start again. */
  | { status: 'stale' }
  | Exclude<PinCheck, { status: 'ok' }>;

export interface NewAgent {
  /** As typed: `+26771234567`, `26771234567` or the national `71234567`. */
  msisdn: string;
  name: string;
  language?: string;
  funding: AgentFunding;
  limits?: AgentLimits;
}

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
}

const MAX_NAME = 80;
/** Tries when the PIN changes between reading it and counting an attempt (an operator reset). */
const STALE_TRIES = 3;

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

/**
 * The agent registry: registration, PIN checks with the lockout rules, PIN changes, and the
 * operator's enable/disable/reset. The one API the USSD dialogue, the SMS commands, the admin
 * router and the CLI use; it hands out `Agent`s (never the PIN hash).
 */
export class AgentRegistry {
  private readonly store: AgentStore;
  private readonly clock: () => Date;
  private readonly scrypt: ScryptParams;
  private readonly lockout: LockoutPolicy;

  constructor(private readonly options: AgentRegistryOptions) {
    this.store = options.store;
    this.clock = options.clock ?? (() => new Date());
    this.scrypt = options.scrypt ?? DEFAULT_SCRYPT;
    this.lockout = options.lockout ?? DEFAULT_LOCKOUT;
  }

  /** An MSISDN as an operator typed it, as E.164 digits; AgentInputError('msisdn') when it is no mobile number. */
  msisdnOf(input: string): string {
    const result = normaliseMsisdn(String(input ?? ''), this.options.region);
    if (!result.ok)
      throw new AgentInputError('msisdn', 'msisdn must be a mobile number (E.164, e.g. 26771234567)');
    return result.e164;
  }

  /** Register an agent with a one-time PIN, returned here once and never again. */
  async add(input: NewAgent): Promise<{ agent: Agent; oneTimePin: string }> {
    const msisdn = this.msisdnOf(input.msisdn);
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
      failedAttempts: 0,
      lockedUntil: null,
      lockoutDay: null,
      lockoutsToday: 0,
      mustChangePin: true,
      funding,
      limits,
      createdAt: now,
      updatedAt: now,
      pin: { ...(await hashPin(pin, this.scrypt)), version: 1 },
    };
    if (!(await this.store.create(record))) throw new AgentExistsError(msisdn);
    log.info('agent registered', { msisdn, funding: funding.kind });
    return { agent: publicAgent(record), oneTimePin: pin };
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

  /**
   * Check a PIN and count the attempt (USSD and SMS share the count). While the agent is
   * locked or disabled the PIN is not even compared.
   */
  async verifyPin(msisdn: string, pin: string): Promise<PinCheck> {
    for (let tries = 0; tries < STALE_TRIES; tries += 1) {
      const record = await this.store.get(msisdn);
      if (!record) return { status: 'not_agent' };
      const view = asOf(record, this.clock().getTime());
      if (view.status === 'disabled')
        return { status: 'disabled', reason: view.disabledReason ?? 'operator' };
      if (view.status === 'locked') return { status: 'locked', until: new Date(view.lockedUntil!) };
      const correct = await pinMatches(String(pin ?? ''), record.pin);
      const now = this.clock();
      const outcome = await this.store.recordPinAttempt(msisdn, {
        pinVersion: record.pin.version,
        correct,
        nowMs: now.getTime(),
        day: localDay(now, this.options.timeZone),
        policy: this.lockout,
      });
      if (outcome.kind === 'stale') continue;
      if (outcome.kind === 'ok' && needsRehash(record.pin, this.scrypt)) {
        // Raised parameters reach each agent at its next right PIN.
        await this.writePin(
          msisdn,
          await hashPin(String(pin), this.scrypt),
          outcome.mustChangePin,
          record.pin.version,
        );
        return { status: 'ok', mustChangePin: outcome.mustChangePin, pinVersion: record.pin.version + 1 };
      }
      this.logAttempt(msisdn, outcome);
      return checkOf(outcome, record.pin.version);
    }
    throw new Error('agent PIN changed repeatedly during a check');
  }

  /** Change a PIN in one step (`PIN <old> <new>` by SMS): the old PIN counts like any check. */
  async changePin(msisdn: string, oldPin: string, newPin: string): Promise<PinChange> {
    const problem = newPinProblem(String(newPin ?? ''), String(oldPin ?? ''));
    if (problem) return { status: 'invalid', problem };
    const check = await this.verifyPin(msisdn, oldPin);
    if (check.status !== 'ok') return check;
    return this.setNewPin(msisdn, await hashPin(newPin, this.scrypt), check.pinVersion);
  }

  /**
   * First step of a PIN change over several screens: the new PIN checked (shape, not weak, not
   * the current one) and hashed, so the dialogue keeps a hash between the PIN and its
   * repetition, never the PIN.
   */
  async newPinCandidate(
    msisdn: string,
    newPin: string,
  ): Promise<{ ok: true; candidate: PinCandidate } | { ok: false; problem: PinProblem | 'not_agent' }> {
    const problem = newPinProblem(String(newPin ?? ''));
    if (problem) return { ok: false, problem };
    const record = await this.store.get(msisdn);
    if (!record) return { ok: false, problem: 'not_agent' };
    if (await pinMatches(newPin, record.pin)) return { ok: false, problem: 'same' };
    return { ok: true, candidate: await hashPin(newPin, this.scrypt) };
  }

  /** Whether the repeated PIN is the candidate's (the second screen of a change). */
  candidateMatches(candidate: PinCandidate, repeated: string): Promise<boolean> {
    return pinMatches(String(repeated ?? ''), candidate);
  }

  /**
   * Last step of a staged change: store `candidate` as the PIN, provided the PIN is still the
   * one checked (`pinVersion` from that check's `ok`); clears mustChangePin.
   */
  async setNewPin(msisdn: string, candidate: PinCandidate, pinVersion: number): Promise<PinChange> {
    const result = await this.writePin(msisdn, candidate, false, pinVersion);
    if (result === 'not_found') return { status: 'not_agent' };
    if (result === 'stale') return { status: 'stale' };
    log.info('agent changed its PIN', { msisdn });
    return { status: 'changed' };
  }

  /**
   * An operator sets a fresh one-time PIN (returned once): wrong attempts and lockouts are
   * cleared, and an agent disabled by lockouts is active again; one disabled by an operator or
   * by `BLOCK` stays disabled until `enable`.
   */
  async resetPin(msisdn: string): Promise<{ agent: Agent; oneTimePin: string }> {
    const pin = oneTimePin();
    const result = await this.store.setPin(msisdn, {
      pin: await hashPin(pin, this.scrypt),
      mustChangePin: true,
      expectedVersion: null,
      reset: true,
      now: this.clock(),
    });
    if (result !== 'written') throw new AgentNotFoundError(msisdn);
    log.info('agent PIN reset by an operator', { msisdn });
    return { agent: await this.require(msisdn), oneTimePin: pin };
  }

  /** Disable at once: by an operator, or by the agent itself (`BLOCK`, a lost phone). */
  async disable(msisdn: string, reason: 'operator' | 'blocked' = 'operator'): Promise<Agent> {
    const record = await this.store.setStatus(msisdn, { status: 'disabled', reason, now: this.clock() });
    if (!record) throw new AgentNotFoundError(msisdn);
    log.warn('agent disabled', { msisdn, reason });
    return publicAgent(record);
  }

  /** Enable, clearing wrong attempts and lockouts (the PIN stays as it is). */
  async enable(msisdn: string): Promise<Agent> {
    const record = await this.store.setStatus(msisdn, { status: 'active', reason: null, now: this.clock() });
    if (!record) throw new AgentNotFoundError(msisdn);
    log.info('agent enabled', { msisdn });
    return publicAgent(record);
  }

  private writePin(msisdn: string, pin: PinCandidate, mustChangePin: boolean, expectedVersion: number) {
    return this.store.setPin(msisdn, {
      pin,
      mustChangePin,
      expectedVersion,
      reset: false,
      now: this.clock(),
    });
  }

  private logAttempt(msisdn: string, outcome: AttemptOutcome): void {
    if (outcome.kind === 'locked')
      log.warn('agent locked out after wrong PINs', {
        msisdn,
        until: new Date(outcome.untilMs).toISOString(),
      });
    else if (outcome.kind === 'disabled' && outcome.reason === 'lockouts')
      log.warn('agent disabled after too many lockouts in a day', { msisdn });
  }
}

function checkOf(outcome: AttemptOutcome, pinVersion: number): PinCheck {
  switch (outcome.kind) {
    case 'ok':
      return { status: 'ok', mustChangePin: outcome.mustChangePin, pinVersion };
    case 'wrong':
      return { status: 'wrong', attemptsLeft: outcome.attemptsLeft };
    case 'locked':
      return { status: 'locked', until: new Date(outcome.untilMs) };
    case 'disabled':
      return { status: 'disabled', reason: outcome.reason };
    default:
      return { status: 'not_agent' };
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
