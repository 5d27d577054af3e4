import { createHmac, randomBytes, randomInt, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { componentLogger } from '../observability/logger';
import { AgentNotFoundError } from './errors';
import { asOf, DEFAULT_LOCKOUT, localDay, type AttemptOutcome, type LockoutPolicy } from './lockout';
import { pinSecretFor } from './pin-secret';
import type { AgentStore } from './store';
import { publicAgent, type Agent, type DisabledReason, type ScryptParams, type StoredPin } from './types';

/**
 * PINs: 4–6 digits, hashed with scrypt (node's crypto) and a random salt per agent; the
 * parameters are stored with the hash, so raising them later leaves old hashes verifiable.
 * Compared in constant time. The PIN itself is never kept, logged or returned.
 *
 * With only 10^6 PINs a salt alone does not stop someone holding the rows from trying them all,
 * so scrypt is given HMAC-SHA256(secret, PIN): the server secret (`AGENT_PIN_SECRET`, a pepper)
 * kept outside the records. Such hashes say `pepper: true` in their parameters; older ones
 * (without) still verify and are rehashed at the agent's next right PIN (`needsRehash`).
 *
 * `AgentPins` applies them to an agent's record: checks counted against the lockout rules (USSD
 * and SMS share the count), the one-step and the staged change (a hash kept between screens,
 * never the PIN), and the operator's reset to a one-time PIN.
 */

const log = componentLogger('agents');

/** N=2^14, r=8: 16 MiB and tens of milliseconds per hash, on libuv's thread pool, not the event loop. */
export const DEFAULT_SCRYPT: ScryptParams = { N: 16384, r: 8, p: 1, keyLen: 32 };

const SALT_BYTES = 16;
const PIN_FORMAT = /^\d{4,6}$/;

/** Why a new PIN is refused (the screen says which). */
export type PinProblem = 'format' | 'weak' | 'same';

/** The server secret PINs are peppered with (never stored with the records, never logged). */
export type PinSecret = Buffer;

function scryptAsync(
  pin: string,
  salt: Buffer,
  params: ScryptParams,
  secret: PinSecret | null,
): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r };
  if (params.pepper && !secret) return Promise.reject(new Error('a peppered PIN hash needs the PIN secret'));
  const input = params.pepper ? createHmac('sha256', secret!).update(pin).digest() : pin;
  return new Promise((resolve, reject) =>
    scrypt(input, salt, params.keyLen, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** Whether `pin` has the shape of a PIN (4–6 digits). */
export function isPinShaped(pin: string): boolean {
  return PIN_FORMAT.test(pin);
}

/** One digit repeated (`0000`) or a run up or down (`1234`, `987654`): the first PINs guessed. */
export function isWeakPin(pin: string): boolean {
  const digits = [...pin].map(Number);
  const steps = new Set(digits.slice(1).map((d, i) => (d - digits[i] + 10) % 10));
  return steps.size === 1 && [0, 1, 9].includes([...steps][0]);
}

/** Why `pin` cannot become an agent's new PIN, or null when it can. */
export function newPinProblem(pin: string, old?: string): PinProblem | null {
  if (!isPinShaped(pin)) return 'format';
  if (isWeakPin(pin)) return 'weak';
  if (old !== undefined && pin === old) return 'same';
  return null;
}

/** A random six-digit one-time PIN (never a weak one), for the operator to hand over once. */
export function oneTimePin(): string {
  for (;;) {
    const pin = String(randomInt(0, 1_000_000)).padStart(6, '0');
    if (!isWeakPin(pin)) return pin;
  }
}

/**
 * Hash `pin` with a fresh salt, peppered with `secret`; `version` is the caller's (the store
 * bumps it on write).
 */
export async function hashPin(
  pin: string,
  secret: PinSecret,
  params: ScryptParams = DEFAULT_SCRYPT,
): Promise<Omit<StoredPin, 'version'>> {
  const salt = randomBytes(SALT_BYTES);
  const peppered: ScryptParams = {
    N: params.N,
    r: params.r,
    p: params.p,
    keyLen: params.keyLen,
    pepper: true,
  };
  const hash = await scryptAsync(pin, salt, peppered, secret);
  return { hash: hash.toString('base64'), salt: salt.toString('base64'), params: peppered };
}

/**
 * Whether `pin` matches `stored`, with the stored parameters. The comparison takes the same
 * time wherever the first differing byte is (timingSafeEqual); input that is not PIN-shaped is
 * hashed all the same, so its answer does not come back faster either.
 */
export async function pinMatches(
  pin: string,
  stored: Pick<StoredPin, 'hash' | 'salt' | 'params'>,
  secret: PinSecret,
): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'base64');
  const actual = await scryptAsync(
    pin.slice(0, 64),
    Buffer.from(stored.salt, 'base64'),
    stored.params,
    secret,
  );
  return actual.length === expected.length && timingSafeEqual(actual, expected) && isPinShaped(pin);
}

/**
 * Whether a hash was made with weaker parameters than `current`, or without the pepper
 * (re-hashed after a right PIN).
 */
export function needsRehash(stored: Pick<StoredPin, 'params'>, current: ScryptParams): boolean {
  const p = stored.params;
  return !p.pepper || p.N < current.N || p.r < current.r || p.p < current.p || p.keyLen < current.keyLen;
}

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

/** Tries when the PIN changes between reading it and counting an attempt (an operator reset). */
const STALE_TRIES = 3;

/** What PIN checks and changes need: the agents' store and the hashing and lockout settings. */
export interface AgentPinsOptions {
  store: AgentStore;
  /** Zone of the local day the lockouts of a day are counted in. */
  timeZone: string;
  clock?: () => Date;
  scrypt?: ScryptParams;
  lockout?: LockoutPolicy;
  /** The pepper of every PIN hash (src/agents/pin-secret.ts); unset: the process's in-memory one. */
  pinSecret?: PinSecret;
}

/** An agent's PIN checked, changed and reset, in the agents' store. */
export class AgentPins {
  private readonly store: AgentStore;
  private readonly timeZone: string;
  private readonly clock: () => Date;
  private readonly scrypt: ScryptParams;
  private readonly lockout: LockoutPolicy;
  private readonly secret: PinSecret;

  constructor(options: AgentPinsOptions) {
    this.store = options.store;
    this.timeZone = options.timeZone;
    this.clock = options.clock ?? (() => new Date());
    this.scrypt = options.scrypt ?? DEFAULT_SCRYPT;
    this.lockout = options.lockout ?? DEFAULT_LOCKOUT;
    this.secret = options.pinSecret ?? pinSecretFor(null, undefined);
  }

  /**
   * Check a PIN and count the attempt (USSD and SMS share the count). While the agent is
   * locked or disabled the PIN is not even compared.
   */
  async verifyPin(msisdn: string, pin: string): Promise<PinCheck> {
    const { store, clock, secret, scrypt } = this;
    for (let tries = 0; tries < STALE_TRIES; tries += 1) {
      const record = await store.get(msisdn);
      if (!record) return { status: 'not_agent' };
      const view = asOf(record, clock().getTime());
      if (view.status === 'disabled')
        return { status: 'disabled', reason: view.disabledReason ?? 'operator' };
      if (view.status === 'locked') return { status: 'locked', until: new Date(view.lockedUntil!) };
      const correct = await pinMatches(String(pin ?? ''), record.pin, secret);
      const now = clock();
      const outcome = await store.recordPinAttempt(msisdn, {
        pinVersion: record.pin.version,
        correct,
        nowMs: now.getTime(),
        day: localDay(now, this.timeZone),
        policy: this.lockout,
      });
      if (outcome.kind === 'stale') continue;
      if (outcome.kind === 'ok' && needsRehash(record.pin, scrypt)) {
        // Raised parameters reach each agent at its next right PIN.
        await this.writePin(
          msisdn,
          await hashPin(String(pin), secret, scrypt),
          outcome.mustChangePin,
          record.pin.version,
        );
        return { status: 'ok', mustChangePin: outcome.mustChangePin, pinVersion: record.pin.version + 1 };
      }
      logAttempt(msisdn, outcome);
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
    return this.setNewPin(msisdn, await hashPin(newPin, this.secret, this.scrypt), check.pinVersion);
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
    if (await pinMatches(newPin, record.pin, this.secret)) return { ok: false, problem: 'same' };
    return { ok: true, candidate: await hashPin(newPin, this.secret, this.scrypt) };
  }

  /** Whether the repeated PIN is the candidate's (the second screen of a change). */
  candidateMatches(candidate: PinCandidate, repeated: string): Promise<boolean> {
    return pinMatches(String(repeated ?? ''), candidate, this.secret);
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
      pin: await hashPin(pin, this.secret, this.scrypt),
      mustChangePin: true,
      expectedVersion: null,
      reset: true,
      now: this.clock(),
    });
    if (result !== 'written') throw new AgentNotFoundError(msisdn);
    log.info('agent PIN reset by an operator', { msisdn });
    const record = await this.store.get(msisdn);
    if (!record) throw new AgentNotFoundError(msisdn);
    return { agent: asOf(publicAgent(record), this.clock().getTime()), oneTimePin: pin };
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
}

function logAttempt(msisdn: string, outcome: AttemptOutcome): void {
  if (outcome.kind === 'locked')
    log.warn('agent locked out after wrong PINs', {
      msisdn,
      until: new Date(outcome.untilMs).toISOString(),
    });
  else if (outcome.kind === 'disabled' && outcome.reason === 'lockouts')
    log.warn('agent disabled after too many lockouts in a day', { msisdn });
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
