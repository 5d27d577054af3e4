import type { PinProblem } from './pin';
import { AgentEnrolment, type NewAgent, type NewAssistant } from './registry-enrolment';
import { AgentPins, type PinCandidate, type PinChange, type PinCheck } from './registry-pins';
import { AgentRecords, type AgentRegistryOptions } from './registry-records';
import { AgentStatusChanges, type SupervisedChange } from './registry-status';
import type { Agent } from './types';

export { checkLimits, type NewAgent, type NewAssistant } from './registry-enrolment';
export type { PinCandidate, PinChange, PinCheck } from './registry-pins';
export type { AgentRegistryOptions } from './registry-records';
export type { SupervisedChange } from './registry-status';

/**
 * The agent registry: registration, PIN checks with the lockout rules, PIN changes, and the
 * operator's enable/disable/reset. The one API the USSD dialogue, the SMS commands, the admin
 * router and the CLI use; it hands out `Agent`s (never the PIN hash). Each job is written in its
 * own module: `registry-enrolment.ts`, `registry-pins.ts`, `registry-status.ts`, over the
 * shared reads of `registry-records.ts`.
 */
export class AgentRegistry {
  private readonly records: AgentRecords;
  private readonly enrolment: AgentEnrolment;
  private readonly pins: AgentPins;
  private readonly status: AgentStatusChanges;

  constructor(options: AgentRegistryOptions) {
    this.records = new AgentRecords(options);
    this.enrolment = new AgentEnrolment(this.records);
    this.pins = new AgentPins(this.records);
    this.status = new AgentStatusChanges(this.records);
  }

  // The agents read back (registry-records.ts).

  msisdnOf(input: string): string {
    return this.records.msisdnOf(input);
  }
  get(msisdn: string): Promise<Agent | null> {
    return this.records.get(msisdn);
  }
  require(msisdn: string): Promise<Agent> {
    return this.records.require(msisdn);
  }
  list(options: { limit?: number; offset?: number } = {}): Promise<Agent[]> {
    return this.records.list(options);
  }
  linked(link: 'dealer' | 'outlet', msisdn: string): Promise<Agent[]> {
    return this.records.linked(link, msisdn);
  }
  floatOwner(seller: Agent): Promise<Agent | null> {
    return this.records.floatOwner(seller);
  }

  // Enrolment (registry-enrolment.ts).

  add(input: NewAgent): Promise<{ agent: Agent; oneTimePin: string }> {
    return this.enrolment.add(input);
  }
  addAssistant(input: NewAssistant): Promise<{ agent: Agent; oneTimePin: string }> {
    return this.enrolment.addAssistant(input);
  }

  // PINs and lockout (registry-pins.ts).

  verifyPin(msisdn: string, pin: string): Promise<PinCheck> {
    return this.pins.verifyPin(msisdn, pin);
  }
  changePin(msisdn: string, oldPin: string, newPin: string): Promise<PinChange> {
    return this.pins.changePin(msisdn, oldPin, newPin);
  }
  newPinCandidate(
    msisdn: string,
    newPin: string,
  ): Promise<{ ok: true; candidate: PinCandidate } | { ok: false; problem: PinProblem | 'not_agent' }> {
    return this.pins.newPinCandidate(msisdn, newPin);
  }
  candidateMatches(candidate: PinCandidate, repeated: string): Promise<boolean> {
    return this.pins.candidateMatches(candidate, repeated);
  }
  setNewPin(msisdn: string, candidate: PinCandidate, pinVersion: number): Promise<PinChange> {
    return this.pins.setNewPin(msisdn, candidate, pinVersion);
  }
  resetPin(msisdn: string): Promise<{ agent: Agent; oneTimePin: string }> {
    return this.pins.resetPin(msisdn);
  }

  // Status, supervision and the dealer flag (registry-status.ts).

  supervise(supervisor: string, target: string, status: 'active' | 'disabled'): Promise<SupervisedChange> {
    return this.status.supervise(supervisor, target, status);
  }
  disable(msisdn: string, reason: 'operator' | 'blocked' = 'operator'): Promise<Agent> {
    return this.status.disable(msisdn, reason);
  }
  enable(msisdn: string): Promise<Agent> {
    return this.status.enable(msisdn);
  }
  setDealer(msisdn: string, dealer: boolean, by: string): Promise<Agent> {
    return this.status.setDealer(msisdn, dealer, by);
  }
}
