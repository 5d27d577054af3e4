/**
 * A sandbox run as its own process: settings from the environment (a bad value stops the start
 * with one line), the listening line on stdout, and a clean stop on SIGINT/SIGTERM.
 */
import { LOG_LEVELS, type LogLevel } from '../../observability/logger';
import type { RunningSandbox, ServeOptions } from './serve';

const reason = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** `LOG_LEVEL` (default `info`, a line per request); throws an Error naming it on a bad value. */
function logLevelOf(env: NodeJS.ProcessEnv): LogLevel {
  const level = env.LOG_LEVEL;
  if (level === undefined || level === '') return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  return level as LogLevel;
}

/**
 * `name` prefixes every stderr line (`sandbox: invalid configuration: …`); `settings` throws an
 * Error for a bad value (`LOG_LEVEL` is read here, for every sandbox); `listening` is the JSON
 * line written once the sandbox serves.
 */
export function runStandalone<Settings extends ServeOptions>(
  name: string,
  settings: (env: NodeJS.ProcessEnv) => Settings,
  start: (settings: Settings) => Promise<RunningSandbox>,
  listening: (sandbox: RunningSandbox, settings: Settings) => Record<string, unknown>,
): void {
  const fail = (what: string, err: unknown): never => {
    process.stderr.write(`${name}: ${what}: ${reason(err)}\n`);
    process.exit(1);
  };
  async function main(): Promise<void> {
    let chosen: Settings;
    try {
      chosen = { ...settings(process.env), logLevel: logLevelOf(process.env) };
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      return fail('invalid configuration', error);
    }
    const sandbox = await start(chosen);
    // Handlers first: whoever reads the listening line may stop the process at once.
    const stop = (): void => {
      sandbox.close().then(
        () => process.exit(0),
        (err: unknown) => fail('unclean stop', err),
      );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    process.stdout.write(`${JSON.stringify({ level: 'info', ...listening(sandbox, chosen) })}\n`);
  }
  main().catch((err: unknown) => fail('failed to start', err));
}
