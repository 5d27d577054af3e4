import { ScriptReplyError } from '../../redis/scripts';

/** Return codes of the session scripts (`commands/*.lua`), as their headers list them. */
export enum SessionCode {
  /** Locked, saved or released. */
  Done = 1,
  /** loadAndLock: another hop holds the lock. */
  Busy = -1,
  /** saveAndUnlock, unlock: the caller no longer holds the lock (expired or taken). */
  LockLost = -2,
}

/** What a lock-taking or lock-releasing script's code means; anything unlisted is a bug. */
export function sessionOutcome(command: string, code: unknown): 'done' | 'busy' | 'lock_lost' {
  switch (code) {
    case SessionCode.Done:
      return 'done';
    case SessionCode.Busy:
      return 'busy';
    case SessionCode.LockLost:
      return 'lock_lost';
    default:
      throw new ScriptReplyError(command, code);
  }
}
