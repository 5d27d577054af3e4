import path from 'node:path';
import type { Redis } from 'ioredis';
import { ScriptReplyError, ScriptSet } from '../../redis/scripts';
import { agentKeys, type AgentKeys } from '../keys';
import type { AttemptOutcome, PinAttempt } from '../lockout';
import type { AgentRecord, DisabledReason } from '../types';
import { agentOutcome, AttemptCode } from './codes';
import {
  DEFAULT_AGENT_LIST_LIMIT,
  type AgentStore,
  type PinWrite,
  type PinWriteResult,
  type StatusWrite,
} from './store';

/** The registry's scripts, beside this module in `commands/` (`npm run build` copies them into dist/). */
export const AGENT_SCRIPTS = new ScriptSet('agent', 1, path.join(__dirname, 'commands'), [
  'createAgent-2',
  'recordPinAttempt-1',
  'setPin-1',
  'setAgentStatus-1',
] as const);

const ms = (iso: string | null): string => (iso === null ? '0' : String(Date.parse(iso)));
const iso = (ms: string | undefined): string | null =>
  ms === undefined || ms === '' || ms === '0' ? null : new Date(Number(ms)).toISOString();
const orNull = (s: string | undefined): string | null => (s === undefined || s === '' ? null : s);

/** A record as hash fields (lockedUntil in ms, flags as 1/0, objects as JSON). */
function toFields(record: AgentRecord): string[] {
  const fields: Record<string, string> = {
    msisdn: record.msisdn,
    name: record.name,
    language: record.language,
    status: record.status,
    disabledReason: record.disabledReason ?? '',
    failedAttempts: String(record.failedAttempts),
    lockedUntil: ms(record.lockedUntil),
    lockoutDay: record.lockoutDay ?? '',
    lockoutsToday: String(record.lockoutsToday),
    mustChangePin: record.mustChangePin ? '1' : '0',
    funding: JSON.stringify(record.funding),
    limits: JSON.stringify(record.limits),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    pinHash: record.pin.hash,
    pinSalt: record.pin.salt,
    pinParams: JSON.stringify(record.pin.params),
    pinVersion: String(record.pin.version),
  };
  return Object.entries(fields).flat();
}

function fromFields(h: Record<string, string>): AgentRecord | null {
  if (h.msisdn === undefined) return null;
  return {
    msisdn: h.msisdn,
    name: h.name,
    language: h.language,
    status: h.status as AgentRecord['status'],
    disabledReason: orNull(h.disabledReason) as DisabledReason | null,
    failedAttempts: Number(h.failedAttempts),
    lockedUntil: iso(h.lockedUntil),
    lockoutDay: orNull(h.lockoutDay),
    lockoutsToday: Number(h.lockoutsToday),
    mustChangePin: h.mustChangePin === '1',
    funding: JSON.parse(h.funding) as AgentRecord['funding'],
    limits: JSON.parse(h.limits) as AgentRecord['limits'],
    createdAt: h.createdAt,
    updatedAt: h.updatedAt,
    pin: {
      hash: h.pinHash,
      salt: h.pinSalt,
      params: JSON.parse(h.pinParams) as AgentRecord['pin']['params'],
      version: Number(h.pinVersion),
    },
  };
}

/**
 * Agent records in Redis: one hash per agent under `agent:{agents}:record:<msisdn>`, listed in
 * `agent:{agents}:index`. Created, locked out and changed only by Lua scripts.
 */
export class RedisAgentStore implements AgentStore {
  private readonly keys: AgentKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = agentKeys(prefix);
    AGENT_SCRIPTS.define(redis);
  }

  async create(record: AgentRecord): Promise<boolean> {
    const code = await AGENT_SCRIPTS.run(
      this.redis,
      'createAgent-2',
      [this.keys.record(record.msisdn), this.keys.index()],
      [record.msisdn, Date.parse(record.createdAt), ...toFields(record)],
    );
    const outcome = agentOutcome('createAgent', code);
    if (outcome === 'written') return true;
    if (outcome === 'taken') return false;
    throw new ScriptReplyError('createAgent', code);
  }

  async get(msisdn: string): Promise<AgentRecord | null> {
    return fromFields(await this.redis.hgetall(this.keys.record(msisdn)));
  }

  async list(options: { limit?: number; offset?: number } = {}): Promise<AgentRecord[]> {
    const offset = options.offset ?? 0;
    const limit = options.limit ?? DEFAULT_AGENT_LIST_LIMIT;
    const msisdns = await this.redis.zrange(this.keys.index(), String(offset), String(offset + limit - 1));
    if (msisdns.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const msisdn of msisdns) pipeline.hgetall(this.keys.record(msisdn));
    const records: AgentRecord[] = [];
    for (const [error, fields] of (await pipeline.exec()) ?? []) {
      if (error) throw error;
      const record = fromFields(fields as Record<string, string>);
      if (record) records.push(record);
    }
    return records;
  }

  async recordPinAttempt(msisdn: string, attempt: PinAttempt): Promise<AttemptOutcome> {
    const { policy } = attempt;
    const reply = (await AGENT_SCRIPTS.run(
      this.redis,
      'recordPinAttempt-1',
      [this.keys.record(msisdn)],
      [
        attempt.pinVersion,
        attempt.correct ? '1' : '0',
        attempt.nowMs,
        attempt.day,
        policy.maxAttempts,
        policy.baseLockMs,
        policy.maxLockoutsPerDay,
        new Date(attempt.nowMs).toISOString(),
      ],
    )) as [number, number | string];
    const [code, value] = reply;
    switch (code) {
      case AttemptCode.Ok:
        return { kind: 'ok', mustChangePin: value === 1 };
      case AttemptCode.Wrong:
        return { kind: 'wrong', attemptsLeft: Number(value) };
      case AttemptCode.Locked:
        return { kind: 'locked', untilMs: Number(value) };
      case AttemptCode.Disabled:
        return { kind: 'disabled', reason: value as DisabledReason };
    }
    const outcome = agentOutcome('recordPinAttempt', code);
    if (outcome === 'not_found') return { kind: 'not_found' };
    if (outcome === 'stale') return { kind: 'stale' };
    throw new ScriptReplyError('recordPinAttempt', reply);
  }

  async setPin(msisdn: string, write: PinWrite): Promise<PinWriteResult> {
    const code = await AGENT_SCRIPTS.run(
      this.redis,
      'setPin-1',
      [this.keys.record(msisdn)],
      [
        write.pin.hash,
        write.pin.salt,
        JSON.stringify(write.pin.params),
        write.mustChangePin ? '1' : '0',
        write.expectedVersion === null ? '' : write.expectedVersion,
        write.reset ? '1' : '0',
        write.now.toISOString(),
      ],
    );
    const outcome = agentOutcome('setPin', code);
    if (outcome === 'taken') throw new ScriptReplyError('setPin', code);
    return outcome;
  }

  async setStatus(msisdn: string, write: StatusWrite): Promise<AgentRecord | null> {
    const code = await AGENT_SCRIPTS.run(
      this.redis,
      'setAgentStatus-1',
      [this.keys.record(msisdn)],
      [
        write.status,
        write.status === 'disabled' ? (write.reason ?? 'operator') : '',
        write.now.toISOString(),
      ],
    );
    const outcome = agentOutcome('setAgentStatus', code);
    if (outcome === 'not_found') return null;
    if (outcome !== 'written') throw new ScriptReplyError('setAgentStatus', code);
    return this.get(msisdn);
  }
}
