import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';

/**
 * The store's Lua scripts, one operation per file (`<verbNoun>-<numKeys>.lua`), registered
 * with `defineCommand` under a versioned name so a changed script never runs under an old SHA.
 */
const SCRIPT_VERSION = 'v1';
const SCRIPTS = ['createPurchase-5', 'transitionPurchase-4'] as const;
type ScriptName = (typeof SCRIPTS)[number];

/** Return codes of transitionPurchase-4.lua. */
export enum TransitionCode {
  Written = 1,
  NotFound = -1,
  Conflict = -2,
}

/** The .lua files sit beside this module (`npm run build` copies them into dist/ too). */
function scriptPath(name: ScriptName): string {
  return path.join(__dirname, 'commands', `${name}.lua`);
}

export function commandName(name: ScriptName): string {
  return `${name.split('-')[0]}_${SCRIPT_VERSION}`;
}

/** Register every script on `redis` (idempotent per connection). */
export function defineStoreCommands(redis: Redis): void {
  for (const name of SCRIPTS) {
    const command = commandName(name);
    if (typeof (redis as unknown as Record<string, unknown>)[command] === 'function') continue;
    redis.defineCommand(command, {
      lua: readFileSync(scriptPath(name), 'utf8'),
      numberOfKeys: Number(name.split('-')[1]),
    });
  }
}

type Executor = (...args: (string | number)[]) => Promise<unknown>;

/** Run a registered script: KEYS first, then ARGV, as the file header lists them. */
export function runCommand(
  redis: Redis,
  name: ScriptName,
  keys: string[],
  argv: (string | number)[],
): Promise<unknown> {
  const fn = (redis as unknown as Record<string, Executor>)[commandName(name)];
  return fn.call(redis, ...keys, ...argv);
}
