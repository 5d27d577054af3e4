import { ScriptReplyError } from '../../redis/scripts';

/** Return codes of the agent registry scripts (`commands/*.lua`), as their headers list them. */
export enum AgentCode {
  Written = 1,
  /** No such agent. */
  NotFound = -1,
  /** setPin / recordPinAttempt: the PIN changed since the caller read it. */
  Stale = -2,
  /** createAgent: the MSISDN is an agent already. */
  Taken = -3,
}

/** recordPinAttempt's first reply element when it is not a refusal. */
export enum AttemptCode {
  Ok = 1,
  Wrong = 2,
  Locked = 3,
  Disabled = 4,
}

/** What a registry write script's code means; anything unlisted is a bug. */
export function agentOutcome(command: string, code: unknown): 'written' | 'not_found' | 'stale' | 'taken' {
  switch (code) {
    case AgentCode.Written:
      return 'written';
    case AgentCode.NotFound:
      return 'not_found';
    case AgentCode.Stale:
      return 'stale';
    case AgentCode.Taken:
      return 'taken';
    default:
      throw new ScriptReplyError(command, code);
  }
}
