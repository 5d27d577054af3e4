/**
 * What every command family of the operator CLI shares: its flags and usage, the exit codes, the
 * one-line error, opening the configuration, the records and Redis (each with its one-line
 * refusal), closing them when the command ends, and the masked or revealed display.
 */
import { userInfo } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config';
import { maskNumbersInText } from '../observability/logger';
import type { AuditTrail } from '../purchases/care/audit';
import { maskForDisplay } from '../purchases/care/masking';
import type { Database } from '../records/database';
import { IN_MEMORY, openRecords } from '../records/open';
import { checkRedisReachable } from '../redis/preflight';

/** Where a command prints, and the environment it reads. */
export interface CliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

/** Exit codes: 0 ok, 1 refused or failed, 2 usage or configuration, 3 confirm outcome unknown. */
export const EXIT = { ok: 0, failed: 1, usage: 2, outcomeUnknown: 3 } as const;

/** The operator asked for something the command cannot do as given: exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The records cannot be opened from here (no database named): a usage error, exit 2. */
export class NoRecordsError extends Error {
  constructor(instead?: string) {
    super(
      `without DATABASE_URL the records are in the running gateway's embedded database: ` +
        `set DATABASE_URL (and DATABASE_SCHEMA) as the gateway has them${instead ? `, or ${instead}` : ''}`,
    );
    this.name = 'NoRecordsError';
  }
}

type ErrorClass = abstract new (...args: never[]) => Error;

/** Errors that are the operator's to fix (exit 2) in every family; a family may add its own. */
const USAGE_ERRORS: readonly ErrorClass[] = [UsageError, ConfigError, NoRecordsError];

/** The one line every failure prints. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Prints the one-line error; exit 2 for the operator's mistakes (`usageErrors` too), else 1. */
export function fail(io: CliIo, error: unknown, usageErrors: readonly ErrorClass[] = []): number {
  io.stderr(`error: ${messageOf(error)}`);
  return [...USAGE_ERRORS, ...usageErrors].some((type) => error instanceof type) ? EXIT.usage : EXIT.failed;
}

/** A usage misunderstood: the one-line error (if one) and the usage on stderr, exit 2. */
export function misused(io: CliIo, usage: string, error?: string): number {
  if (error !== undefined) io.stderr(`error: ${error}`);
  io.stderr(usage);
  return EXIT.usage;
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; allowPositionals: true; strict: true; options: O }>
>;
const HELP = { help: { type: 'boolean', short: 'h', default: false } } as const;

/** Flags that take a value (`--msisdn NUMBER`), by name: a family's flag table names them once. */
export function valueFlags<K extends string>(...names: K[]): { [P in K]: { type: 'string' } } {
  return Object.fromEntries(names.map((name) => [name, { type: 'string' }])) as {
    [P in K]: { type: 'string' };
  };
}

/** Switches (`--json`, `--reveal`), by name: off unless given. */
export function switches<K extends string>(...names: K[]): { [P in K]: { type: 'boolean'; default: false } } {
  return Object.fromEntries(names.map((name) => [name, { type: 'boolean', default: false }])) as {
    [P in K]: { type: 'boolean'; default: false };
  };
}

/**
 * A family's flags and positionals. `help` or `--help` prints its usage on stdout and a flag it
 * does not know prints the one-line error and the usage: both give the exit code to return.
 */
export function parseFlags<O extends Options>(
  io: CliIo,
  usage: string,
  argv: string[],
  options: O,
): Parsed<O> | number {
  let parsed: Parsed<O>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { ...options, ...HELP },
    });
  } catch (error) {
    return misused(io, usage, messageOf(error));
  }
  if ((parsed.values as { help?: boolean }).help || parsed.positionals[0] === 'help') {
    io.stdout(usage);
    return EXIT.ok;
  }
  return parsed;
}

/** Who the audit trail names for an operator at a shell: `cli:<user>`. */
export function cliActor(env: NodeJS.ProcessEnv): string {
  return `cli:${env.USER ?? env.LOGNAME ?? userInfo().username}`;
}

/** What a command prints: masked, or revealed after the reveal is audited (`CommandScope.display`). */
export type Display = <T>(value: T, purchaseIds?: readonly string[]) => Promise<T>;

/**
 * One command's run: it opens what it needs through this, and everything is closed when the
 * command ends (the last opened first), whatever the outcome.
 */
export class CommandScope {
  private readonly closers: Array<() => Promise<unknown>> = [];

  constructor(
    readonly io: CliIo,
    /** The command as typed (`cli agent show …`), for the audit trail. */
    private readonly typed: string,
  ) {}

  get actor(): string {
    return cliActor(this.io.env);
  }

  /** The gateway's configuration from the environment (a `ConfigError` is exit 2). */
  config(): Config {
    return loadConfig(this.io.env);
  }

  /**
   * The system of record as the gateway has it: its PostgreSQL (`DATABASE_URL`,
   * `DATABASE_SCHEMA`), or the embedded database under `DATA_DIR` when no gateway holds it. One
   * in memory lives only inside the running gateway: `NoRecordsError` (exit 2) says where to go
   * instead. A database that is not there fails in one line (`RecordsError`, exit 1) within the
   * pool's 5 s connect timeout; a data directory another process holds names that process.
   */
  async records(config: Config, instead?: string): Promise<Database> {
    if (!config.records.url && config.records.dataDir === IN_MEMORY) throw new NoRecordsError(instead);
    const records = await openRecords(config.records);
    this.onClose(() => records.close());
    return records;
  }

  /**
   * The gateway's Redis, asked once (5 s at most) before any client that reconnects for ever:
   * without REDIS_URL the `missing` line (exit 2), unreachable one line (exit 1).
   */
  async redis(config: Config, missing: string): Promise<string> {
    if (!config.redisUrl) throw new UsageError(missing);
    await checkRedisReachable(config.redisUrl);
    return config.redisUrl;
  }

  /** Closes `close` when the command ends. */
  onClose(close: () => Promise<unknown>): void {
    this.closers.push(close);
  }

  /**
   * The CLI's one rule for what it prints: masked (as the admin answers are), or with `--reveal`
   * shown whole after the reveal is written to the audit trail — one entry per purchase it shows
   * (so the purchase's own trail has it), or one entry when it shows none. Refused (the command
   * fails) when the trail cannot be written.
   */
  display(reveal: boolean, audit: () => Pick<AuditTrail, 'record'>): Display {
    return async (value, purchaseIds = []) => {
      if (!reveal) return maskForDisplay(value) as typeof value;
      const detail = maskNumbersInText(this.typed);
      const trail = audit();
      const ids = purchaseIds.length > 0 ? purchaseIds : [undefined];
      await Promise.all(
        ids.map((purchaseId) => trail.record({ actor: this.actor, action: 'reveal', detail, purchaseId })),
      );
      return value;
    };
  }

  async close(): Promise<void> {
    let failure: unknown;
    for (const close of this.closers.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  }
}

/**
 * Runs one command of `family` (its exit code): a throw is the one-line error (exit 2 for the
 * operator's mistakes, the family's own `usageErrors` included, else 1), and what it opened is
 * closed.
 */
export async function runCommand(
  io: CliIo,
  family: string,
  argv: string[],
  usageErrors: readonly ErrorClass[],
  body: (scope: CommandScope) => Promise<number>,
): Promise<number> {
  // Numbers in the command are masked when it is written (display); --reveal itself is left out.
  const scope = new CommandScope(io, `cli ${family} ${argv.filter((a) => a !== '--reveal').join(' ')}`);
  try {
    return await body(scope);
  } catch (error) {
    return fail(io, error, usageErrors);
  } finally {
    await scope.close();
  }
}
