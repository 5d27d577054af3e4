import type { CountryCode } from '../phone';
import { AgentFloat } from './float';
import type { Database } from '../records/database';
import { SqlFloatStore } from './ledger/sql';
import type { LockoutPolicy } from './lockout';
import { AgentRegistry } from './registry';
import { DealerRegistrations } from './registrations';
import { SqlAgentStore } from './store/sql';
import type { AgentSettings } from './settings';
import type { ScryptParams } from './types';
import { AgentPins, type PinSecret } from './pin';
import { pinSecretFor, SHARED_RECORDS } from './pin-secret';

/**
 * Field agents: the registry (MSISDN, PIN, lockout, status) and the float with the daily
 * limits, both kept in the system of record.
 */

export interface Agents {
  registry: AgentRegistry;
  /** PIN checks (counted against the lockout), changes and resets, over the registry's store. */
  pins: AgentPins;
  float: AgentFloat;
  /** Retailers dealers add by USSD (`DEALER_REGISTRATION`; approve when not given). */
  registrations: DealerRegistrations;
}

/** What tests may change beyond the configuration. */
export interface AgentsOptions {
  clock?: () => Date;
  scrypt?: ScryptParams;
  lockout?: LockoutPolicy;
  pinSecret?: PinSecret;
}

/** The parts of the gateway's configuration the agents read. */
interface AgentsConfig {
  timeZone: string;
  defaultRegion: string;
  defaultLanguage: string;
  agents: Omit<
    AgentSettings,
    'serviceCodes' | 'commission' | 'dealerShareBp' | 'summaryTime' | 'pinSecret' | 'dealerRegistration'
  > &
    Partial<Pick<AgentSettings, 'commission' | 'dealerShareBp' | 'pinSecret' | 'dealerRegistration'>>;
  /** Where the embedded records live: the PIN secret is kept beside them when none is configured. */
  records?: { url?: string; dataDir: string };
}

/** The registry, the PINs and the float, in the system of record `db`. */
export function createAgents(db: Database, config: AgentsConfig, options: AgentsOptions = {}): Agents {
  const settings = {
    store: new SqlAgentStore(db),
    timeZone: config.timeZone,
    region: config.defaultRegion as CountryCode,
    defaultLanguage: config.defaultLanguage,
    ...options,
    pinSecret:
      options.pinSecret ??
      pinSecretFor(config.agents.pinSecret, config.records?.url ? SHARED_RECORDS : config.records?.dataDir),
  };
  const registry = new AgentRegistry(settings);
  const pins = new AgentPins(settings);
  const float = new AgentFloat({
    store: new SqlFloatStore(db),
    currency: config.agents.currency,
    defaults: {
      maxSaleMinor: config.agents.maxSaleMinor,
      maxDayValueMinor: config.agents.maxDayValueMinor,
      maxDayCount: config.agents.maxDayCount,
    },
    timeZone: config.timeZone,
    commission: config.agents.commission,
    dealerShareBp: config.agents.dealerShareBp,
    clock: options.clock,
  });
  const registrations = new DealerRegistrations({
    db,
    registry,
    mode: config.agents.dealerRegistration ?? 'approve',
    clock: options.clock,
  });
  return { registry, pins, float, registrations };
}

export { AgentRegistry, type NewAgent } from './registry';
export { AgentFloat, MAX_AMOUNT_MINOR, type Allowance, type SaleRefusal, type Statement } from './float';
export type {
  CommissionWrite,
  Deposit,
  DepositDecision,
  SettleSaleResult,
  TransferResult,
  CreditResult,
  FloatBalance,
  FloatEntry,
  LimitName,
  OutcomeResult,
  Reservation,
  ReserveResult,
} from './ledger/store';
export {
  DealerRegistrations,
  type Registration,
  type RegistrationDecision,
  type RegistrationRefusal,
  type RegistrationRequest,
  type RegistrationState,
} from './registrations';
export { AgentConflictError, AgentExistsError, AgentInputError, AgentNotFoundError } from './errors';
export { DEFAULT_LOCKOUT, localDay, type LockoutPolicy } from './lockout';
export {
  AgentPins,
  DEFAULT_SCRYPT,
  type PinCandidate,
  type PinChange,
  type PinCheck,
  type PinProblem,
} from './pin';
export * from './types';
