import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { hashTagOf, slotOfTag } from './keys';

/** A script answered something its header does not list: a bug, never a business outcome. */
export class ScriptReplyError extends Error {
  constructor(command: string, reply: unknown) {
    super(`redis script ${command}: unexpected reply ${JSON.stringify(reply)}`);
    this.name = 'ScriptReplyError';
  }
}

/** A multi-key script was handed keys of different Cluster slots (Redis Cluster refuses those). */
export class CrossSlotError extends Error {
  constructor(command: string, keys: readonly string[]) {
    super(`redis script ${command}: keys in different cluster slots: ${keys.join(' ')}`);
    this.name = 'CrossSlotError';
  }
}

/** `createPurchase-5` → 5: the file name says how many of the arguments are KEYS. */
export function numKeysOf(file: string): number {
  const match = /-(\d+)$/.exec(file);
  if (!match) throw new Error(`redis script ${file}: name must end in -<numKeys>`);
  return Number(match[1]);
}

type Executor = (...args: (string | number)[]) => Promise<unknown>;

/**
 * One store's Lua scripts: `<dir>/<verbNoun>-<numKeys>.lua`, each registered once per
 * connection with ioredis `defineCommand` as `<kind><VerbNoun>_v<version>` (bump `version`
 * when a script's KEYS, ARGV or replies change, so a name always means one contract).
 * ioredis runs them by SHA and reloads a script Redis has forgotten.
 */
export class ScriptSet<Name extends string> {
  private readonly sources = new Map<Name, string>();
  /** Each script's command name and key count, worked out once: `run` is on every hop. */
  private readonly commands: Map<Name, { command: string; numKeys: number }>;
  /** Connections that have every script of the set registered. */
  private readonly definedOn = new WeakSet<Redis>();

  constructor(
    private readonly kind: string,
    private readonly version: number,
    private readonly dir: string,
    readonly names: readonly Name[],
  ) {
    this.commands = new Map(
      names.map((name) => [name, { command: this.commandName(name), numKeys: numKeysOf(name) }]),
    );
  }

  /** The command name a script is registered under (`ussd` + `loadAndLock-2` → `ussdLoadAndLock_v2`). */
  commandName(name: Name): string {
    const verbNoun = name.slice(0, name.lastIndexOf('-'));
    return `${this.kind}${verbNoun[0].toUpperCase()}${verbNoun.slice(1)}_v${this.version}`;
  }

  /** The script's source, read from disk once per process. */
  source(name: Name): string {
    let lua = this.sources.get(name);
    if (lua === undefined) {
      lua = readFileSync(path.join(this.dir, `${name}.lua`), 'utf8');
      this.sources.set(name, lua);
    }
    return lua;
  }

  /** Register every script on `redis` (a no-op for those it already has). */
  define(redis: Redis): void {
    if (this.definedOn.has(redis)) return;
    for (const [name, { command, numKeys }] of this.commands) {
      if (typeof (redis as unknown as Record<string, unknown>)[command] === 'function') continue;
      redis.defineCommand(command, { numberOfKeys: numKeys, lua: this.source(name) });
    }
    this.definedOn.add(redis);
  }

  /**
   * Run a script: KEYS first, then ARGV, as its header lists them. Keys of different Cluster
   * slots are refused here too, so a single-node Redis (tests, development) catches what a
   * cluster would refuse in production.
   */
  run(
    redis: Redis,
    name: Name,
    keys: readonly string[],
    argv: readonly (string | number)[],
  ): Promise<unknown> {
    const { command, numKeys } = this.commands.get(name)!;
    if (keys.length !== numKeys) throw new Error(`redis script ${command}: expected ${numKeys} keys`);
    if (!inOneSlot(keys)) return Promise.reject(new CrossSlotError(command, keys));
    this.define(redis);
    const fn = (redis as unknown as Record<string, Executor>)[command];
    return fn.call(redis, ...keys, ...argv);
  }
}

/** Whether Redis Cluster would take `keys` in one command: the same hash tag needs no checksum. */
function inOneSlot(keys: readonly string[]): boolean {
  if (keys.length < 2) return true;
  const tag = hashTagOf(keys[0]);
  let slot: number | undefined;
  for (let i = 1; i < keys.length; i += 1) {
    const other = hashTagOf(keys[i]);
    if (other === tag) continue;
    slot ??= slotOfTag(tag);
    if (slotOfTag(other) !== slot) return false;
  }
  return true;
}
