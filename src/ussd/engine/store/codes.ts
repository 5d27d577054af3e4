import { ScriptReplyError } from '../../../redis/scripts';

/** Return codes of the session scripts (`commands/*.lua`), as their headers list them. */
export enum SessionCode {
  /** Locked, saved or released. */
  Done = 1,
  /** loadAndLock: locked, and the record is the one the caller remembers (not sent back). */
  Unchanged = 2,
  /** saveIfCurrent: the record changed, nothing written; locked for the caller, record sent back. */
  Changed = 3,
  /** loadAndLock, saveIfCurrent: another hop holds the lock. */
  Busy = -1,
  /** saveAndUnlock, unlock: the caller no longer holds the lock (expired or taken). */
  LockLost = -2,
}

export type SessionOutcome = 'done' | 'unchanged' | 'changed' | 'busy' | 'lock_lost';

/** What a session script's code means; anything unlisted is a bug. */
export function sessionOutcome(command: string, code: unknown): SessionOutcome {
  switch (code) {
    case SessionCode.Done:
      return 'done';
    case SessionCode.Unchanged:
      return 'unchanged';
    case SessionCode.Changed:
      return 'changed';
    case SessionCode.Busy:
      return 'busy';
    case SessionCode.LockLost:
      return 'lock_lost';
    default:
      throw new ScriptReplyError(command, code);
  }
}
