/**
 * A dealer registers its own retailer (the USSD "Add retailer"). The request is
 * checked (a number, not the dealer itself, not an agent already, not blocked, not waiting
 * already, the dealer active), kept once per request key, and then either waits for an operator
 * (`DEALER_REGISTRATION=approve`) or is approved by the request itself (`direct`). Approving
 * registers through `AgentRegistry.add` with the dealer — the one onboarding `agent add
 * --dealer` uses: a float-funded retailer whose first PIN is a one-time PIN, returned once to
 * the operator who approved (never in an SMS, never stored in clear). Approved twice: one agent.
 */
import { componentLogger } from '../observability/logger';
import { AgentExistsError, AgentInputError } from './errors';
import type { AgentRegistry } from './registry';
import { SqlRegistrationStore, type Registration, type RegistrationState } from './registrations-sql';
import type { Database } from '../records/database';
import type { Agent } from './types';

export type { Registration, RegistrationState } from './registrations-sql';

const log = componentLogger('agents');

/** A retailer's name as typed on a phone: what a USSD line shows whole. */
export const MAX_RETAILER_NAME = 30;
const MAX_LIST = 500;

/** Why a dealer's request is refused (nothing kept). */
export type RegistrationRefusal =
  'invalid_number' | 'invalid_name' | 'self' | 'agent' | 'blocked' | 'pending' | 'dealer_disabled';

export type RegistrationCheck = { status: 'ok'; msisdn: string } | { status: RegistrationRefusal };

export type RegistrationRequest =
  /** Direct mode: the retailer is registered (its first PIN from the operator, `agent reset-pin`). */
  | { status: 'registered'; registration: Registration }
  /** Approve mode: waiting for an operator. */
  | { status: 'pending'; registration: Registration }
  | { status: 'refused'; reason: RegistrationRefusal };

export type RegistrationDecision =
  /** Registered now: its one-time PIN, in this answer only. */
  | { status: 'approved'; registration: Registration; agent: Agent; oneTimePin: string }
  /** Rejected now (by the operator, or because the number became an agent or the dealer is disabled). */
  | { status: 'rejected'; registration: Registration }
  /** Decided before: nothing changed. */
  | { status: 'already'; registration: Registration }
  | { status: 'not_found' };

export interface DealerRegistrationsOptions {
  db: Database;
  registry: AgentRegistry;
  /** `DEALER_REGISTRATION`. */
  mode: 'approve' | 'direct';
  clock?: () => Date;
}

export class DealerRegistrations {
  private readonly store: SqlRegistrationStore;
  private readonly clock: () => Date;

  constructor(private readonly options: DealerRegistrationsOptions) {
    this.store = new SqlRegistrationStore(options.db);
    this.clock = options.clock ?? (() => new Date());
  }

  get mode(): 'approve' | 'direct' {
    return this.options.mode;
  }

  /**
   * Whether `dealer` may add the retailer at `number` (as typed: normalised here). `blocked`:
   * the operator's blocklist (src/spend), asked last.
   */
  async check(
    dealerMsisdn: string,
    number: string,
    blocked?: (msisdn: string) => Promise<boolean>,
  ): Promise<RegistrationCheck> {
    const { registry } = this.options;
    const dealer = await registry.get(dealerMsisdn);
    if (!dealer || dealer.outletMsisdn || dealer.status !== 'active') return { status: 'dealer_disabled' };
    let msisdn: string;
    try {
      msisdn = registry.msisdnOf(number);
    } catch {
      return { status: 'invalid_number' };
    }
    if (msisdn === dealerMsisdn) return { status: 'self' };
    if (await registry.get(msisdn)) return { status: 'agent' };
    if (await this.store.pendingFor(msisdn)) return { status: 'pending' };
    if (blocked && (await blocked(msisdn))) return { status: 'blocked' };
    return { status: 'ok', msisdn };
  }

  /**
   * The dealer's request, once per `requestKey` (the same key again answers as the first time,
   * nothing asked twice): checked, kept, and in direct mode approved at once by the dealer.
   */
  async request(
    dealerMsisdn: string,
    input: { msisdn: string; name: string },
    requestKey: string,
    blocked?: (msisdn: string) => Promise<boolean>,
  ): Promise<RegistrationRequest> {
    const known = await this.store.byKey(requestKey);
    if (known) return this.answerOf(known);
    const name = String(input.name ?? '').trim();
    if (name === '' || name.length > MAX_RETAILER_NAME) return { status: 'refused', reason: 'invalid_name' };
    const checked = await this.check(dealerMsisdn, input.msisdn, blocked);
    if (checked.status !== 'ok') return { status: 'refused', reason: checked.status };
    const dealer = await this.options.registry.get(dealerMsisdn);
    const created = await this.store.create(
      requestKey,
      { dealerMsisdn, msisdn: checked.msisdn, name, language: dealer?.language ?? 'en' },
      this.clock(),
    );
    if (!created) {
      // The same key in a race, or another request for the number that just came first.
      const raced = await this.store.byKey(requestKey);
      return raced ? this.answerOf(raced) : { status: 'refused', reason: 'pending' };
    }
    log.info('a dealer asked to register a retailer', {
      id: created.id,
      dealer: dealerMsisdn,
      msisdn: created.msisdn,
      mode: this.options.mode,
    });
    if (this.options.mode === 'approve') return { status: 'pending', registration: created };
    return this.answerOf(await this.settle(await this.approve(created.id, `dealer:${dealerMsisdn}`)));
  }

  /**
   * Register the retailer of a pending request (`AgentRegistry.add` with its dealer), once: a
   * request decided before answers `already` and changes nothing; a number that became an agent
   * meanwhile, or a dealer no longer active, rejects it with a note saying so.
   */
  async approve(id: number, by: string): Promise<RegistrationDecision> {
    const found = await this.store.get(id);
    if (!found) return { status: 'not_found' };
    if (found.state !== 'pending') return { status: 'already', registration: found };
    const dealer = await this.options.registry.get(found.dealerMsisdn);
    if (!dealer || dealer.status === 'disabled')
      return this.decided(
        found,
        await this.store.decide(id, 'rejected', by, 'dealer disabled', this.clock()),
      );
    let created: { agent: Agent; oneTimePin: string };
    try {
      created = await this.options.registry.add({
        msisdn: found.msisdn,
        name: found.name,
        language: found.language,
        funding: { kind: 'float' },
        dealer: found.dealerMsisdn,
      });
    } catch (error) {
      if (error instanceof AgentExistsError) return this.existing(found, by);
      if (error instanceof AgentInputError)
        return this.decided(found, await this.store.decide(id, 'rejected', by, error.message, this.clock()));
      throw error;
    }
    const decided = await this.store.decide(id, 'approved', by, null, this.clock());
    log.info('a retailer registered for its dealer', {
      id,
      dealer: found.dealerMsisdn,
      msisdn: found.msisdn,
      by,
    });
    return {
      status: 'approved',
      registration: decided ?? { ...found, state: 'approved' },
      agent: created.agent,
      oneTimePin: created.oneTimePin,
    };
  }

  async reject(id: number, by: string, note: string | null): Promise<RegistrationDecision> {
    const found = await this.store.get(id);
    if (!found) return { status: 'not_found' };
    if (found.state !== 'pending') return { status: 'already', registration: found };
    return this.decided(found, await this.store.decide(id, 'rejected', by, note, this.clock()));
  }

  /** Oldest first; `state` absent: every state. */
  list(options: { state?: RegistrationState; dealer?: string } = {}): Promise<Registration[]> {
    return this.store.list({ ...options, limit: MAX_LIST });
  }

  get(id: number): Promise<Registration | null> {
    return this.store.get(id);
  }

  /**
   * The agent exists already: this request's own (an approval that raced, or one that stopped
   * before its mark) when it is the dealer's retailer registered since the request; else the
   * number was registered otherwise, and the request is rejected.
   */
  private async existing(found: Registration, by: string): Promise<RegistrationDecision> {
    const agent = await this.options.registry.get(found.msisdn);
    const ours = agent?.dealerMsisdn === found.dealerMsisdn && agent.createdAt >= found.requestedAt;
    const decided = await this.store.decide(
      found.id,
      ours ? 'approved' : 'rejected',
      by,
      ours ? null : 'already an agent',
      this.clock(),
    );
    if (ours)
      return { status: 'already', registration: decided ?? (await this.store.get(found.id)) ?? found };
    return this.decided(found, decided);
  }

  private async decided(found: Registration, decided: Registration | null): Promise<RegistrationDecision> {
    if (decided)
      return { status: decided.state === 'approved' ? 'already' : 'rejected', registration: decided };
    return { status: 'already', registration: (await this.store.get(found.id)) ?? found };
  }

  /** A decision as the request's answer: its registration as it now is. */
  private async settle(decision: RegistrationDecision): Promise<Registration> {
    if (decision.status === 'not_found') throw new Error('a registration vanished while approved');
    return decision.registration;
  }

  private answerOf(registration: Registration): RegistrationRequest {
    if (registration.state === 'pending') return { status: 'pending', registration };
    if (registration.state === 'approved') return { status: 'registered', registration };
    return {
      status: 'refused',
      reason: registration.note === 'dealer disabled' ? 'dealer_disabled' : 'agent',
    };
  }
}
