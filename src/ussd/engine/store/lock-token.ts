import { randomBytes } from 'node:crypto';

/**
 * Lock tokens only need to differ between holders, across processes: a random process id
 * plus a counter does that without asking the kernel for random bytes on every hop.
 */
const PROCESS_ID = randomBytes(8).toString('hex');
let counter = 0;

export function newLockToken(): string {
  counter += 1;
  return `${PROCESS_ID}-${counter.toString(36)}`;
}
