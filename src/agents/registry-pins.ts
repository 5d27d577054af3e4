import { componentLogger } from '../observability/logger';
import { AgentNotFoundError } from './errors';
import { asOf, localDay, type AttemptOutcome } from './lockout';
import { hashPin, needsRehash, newPinProblem, oneTimePin, pinMatches, type PinProblem } from './pin';
import type { AgentRecords } from './registry-records';
import type { Agent, DisabledReason, StoredPin } from './types';

/**
 * An agent's PIN: checks counted against the lockout rules (USSD and SMS share the count), the
 * one-step and the staged change (a hash kept between screens, never the PIN), and the operator's
 * reset to a one-time PIN.
 */

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

/** Tries when the PIN changes between reading it and counting an attempt (an operator reset). */
const STALE_TRIES = 3;

export class AgentPins {
  constructor(private readonly records: AgentRecords) {}

  /**
   * Check a PIN and count the attempt (USSD and SMS share the count). While the agent is
   * locked or disabled the PIN is not even compared.
   */
  async verifyPin(msisdn: string, pin: string): Promise<PinCheck> {
    const { store, clock, secret, scrypt } = this.records;
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
        day: localDay(now, this.records.options.timeZone),
        policy: this.records.lockout,
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
    return this.setNewPin(
      msisdn,
      await hashPin(newPin, this.records.secret, this.records.scrypt),
      check.pinVersion,
    );
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
    const record = await this.records.store.get(msisdn);
    if (!record) return { ok: false, problem: 'not_agent' };
    if (await pinMatches(newPin, record.pin, this.records.secret)) return { ok: false, problem: 'same' };
    return { ok: true, candidate: await hashPin(newPin, this.records.secret, this.records.scrypt) };
  }

  /** Whether the repeated PIN is the candidate's (the second screen of a change). */
  candidateMatches(candidate: PinCandidate, repeated: string): Promise<boolean> {
    return pinMatches(String(repeated ?? ''), candidate, this.records.secret);
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
    const result = await this.records.store.setPin(msisdn, {
      pin: await hashPin(pin, this.records.secret, this.records.scrypt),
      mustChangePin: true,
      expectedVersion: null,
      reset: true,
      now: this.records.clock(),
    });
    if (result !== 'written') throw new AgentNotFoundError(msisdn);
    log.info('agent PIN reset by an operator', { msisdn });
    return { agent: await this.records.require(msisdn), oneTimePin: pin };
  }

  private writePin(msisdn: string, pin: PinCandidate, mustChangePin: boolean, expectedVersion: number) {
    return this.records.store.setPin(msisdn, {
      pin,
      mustChangePin,
      expectedVersion,
      reset: false,
      now: this.records.clock(),
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
