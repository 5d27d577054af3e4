import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Config } from '../config';
import type { CountryCode } from '../phone';
import type { PurchaseService } from '../vas';
import type { AccountCheck } from './admin/desk';
import { AgentFloat } from './float';
import { MemoryFloatStore, RedisFloatStore } from './ledger/index';
import type { LockoutPolicy } from './lockout';
import { AgentRegistry } from './registry';
import { MemoryAgentStore, RedisAgentStore } from './store/index';
import type { ScryptParams } from './types';

/**
 * Field agents: the registry (MSISDN, PIN, lockout, status) and the float with the daily
 * limits. `createAgents` builds both on Redis or, without it, in memory (the embedded mode).
 */

export interface Agents {
  registry: AgentRegistry;
  float: AgentFloat;
}

/** What tests may change beyond the configuration. */
export interface AgentsOptions {
  clock?: () => Date;
  scrypt?: ScryptParams;
  lockout?: LockoutPolicy;
}

type AgentsConfig = Pick<Config, 'timeZone' | 'defaultRegion' | 'defaultLanguage'> & {
  agents: Omit<Config['agents'], 'serviceCodes'>;
};

/** The registry and the float, on `redis` (keys under `<prefix>:agent:`) or in memory when it is undefined. */
export function createAgents(
  redis: Redis | undefined,
  prefix: string,
  config: AgentsConfig,
  options: AgentsOptions = {},
): Agents {
  const registry = new AgentRegistry({
    store: redis ? new RedisAgentStore(redis, prefix) : new MemoryAgentStore(),
    timeZone: config.timeZone,
    region: config.defaultRegion as CountryCode,
    defaultLanguage: config.defaultLanguage,
    ...options,
  });
  const float = new AgentFloat({
    store: redis ? new RedisFloatStore(redis, prefix) : new MemoryFloatStore(),
    currency: config.agents.currency,
    defaults: {
      maxSaleMinor: config.agents.maxSaleMinor,
      maxDayValueMinor: config.agents.maxDayValueMinor,
      maxDayCount: config.agents.maxDayCount,
    },
    timeZone: config.timeZone,
    clock: options.clock,
  });
  return { registry, float };
}

/** `agent add --account ID`: the account must be one `GET /accounts` lists for the integration user. */
export function accountCheckFor(service: Pick<PurchaseService, 'listAccounts'>): AccountCheck {
  return async (id) => {
    const accounts = await service.listAccounts({
      requestId: `agent-admin-${randomBytes(6).toString('hex')}`,
    });
    return accounts.some((account) => account.id === id);
  };
}

export {
  AgentDesk,
  AccountCheckError,
  type AccountCheck,
  type AgentDetails,
  type AgentSummary,
  type CreditOutcome,
} from './admin/desk';
export { createAgentAdminRouter, type AgentAdminRouterOptions } from './admin/router';
export { AgentRegistry, type PinCheck, type PinChange, type PinCandidate, type NewAgent } from './registry';
export { AgentFloat, type Allowance, type SaleRefusal, type Statement, MAX_AMOUNT_MINOR } from './float';
export type {
  CreditResult,
  FloatBalance,
  FloatEntry,
  LimitName,
  OutcomeResult,
  Reservation,
  ReserveResult,
} from './ledger/store';
export { AgentConflictError, AgentExistsError, AgentInputError, AgentNotFoundError } from './errors';
export { DEFAULT_LOCKOUT, localDay, type LockoutPolicy } from './lockout';
export { DEFAULT_SCRYPT, type PinProblem } from './pin';
export * from './types';
