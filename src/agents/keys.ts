import { keyPrefix } from '../redis/keys';

/**
 * Every Redis key of the agents, built here and nowhere else, all under `agent:`.
 *
 * The registry carries one hash tag, `{agents}`: creating an agent writes its record and the
 * list of all agents in one script, which must stay in one Cluster slot (the registry is small
 * and read once per dialogue; one slot is no burden). Each agent's float carries the agent's
 * own tag, `{<msisdn>}`: every float script touches that agent's keys only, so floats spread
 * over the cluster and sales of different agents never contend.
 */
export interface AgentKeys {
  /** Hash: the agent record (profile, status, lockout counters, PIN hash). */
  record(msisdn: string): string;
  /** Sorted set of every agent's MSISDN, scored by creation time. */
  index(): string;
  float: FloatKeys;
}

export interface FloatKeys {
  /** Hash: `balance` (available minor units), `held` (open reservations), `seq` (entries written). */
  account(msisdn: string): string;
  /** List: every entry, oldest first, as JSON. */
  entries(msisdn: string): string;
  /** Hash: purchase key → `<state>|<amount>|<day>|<funding>` of its reservation. */
  holds(msisdn: string): string;
  /** Hash: `ref:<reference>` and `key:<idempotency key>` → `<seq>|<amount>|<reference>` of a credit or adjustment. */
  refs(msisdn: string): string;
  /** Hash: `<day>|value` and `<day>|count`: the sales counted against the day's limits. */
  days(msisdn: string): string;
}

export const AGENTS_HASH_TAG = '{agents}';

export function agentKeys(prefix: string): AgentKeys {
  const base = `${keyPrefix(prefix)}agent:`;
  const registry = `${base}${AGENTS_HASH_TAG}`;
  const float = (msisdn: string, part: string) => `${base}{${msisdn}}:float:${part}`;
  return {
    record: (msisdn) => `${registry}:record:${msisdn}`,
    index: () => `${registry}:index`,
    float: {
      account: (msisdn) => float(msisdn, 'account'),
      entries: (msisdn) => float(msisdn, 'entries'),
      holds: (msisdn) => float(msisdn, 'holds'),
      refs: (msisdn) => float(msisdn, 'refs'),
      days: (msisdn) => float(msisdn, 'days'),
    },
  };
}
