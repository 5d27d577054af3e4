/**
 * The sandbox's settings from the environment (`SANDBOX_*`): the one parse for `npm run sandbox`
 * and for the sandbox `npm start` embeds, so both read exactly the same variables and defaults.
 */
import { z } from 'zod';

/** What `startSandbox` needs from the environment. */
export interface SandboxSettings {
  port: number;
  host: string;
  meterLock: boolean;
  delayMs: number;
  accessIn: number;
  rateLimit: { limit: number; windowMs: number } | null;
}

/** A `SANDBOX_*` value that does not parse: `variable` names it, `message` says what it must be. */
export class SandboxSettingsError extends Error {
  constructor(
    readonly variable: string,
    readonly problem: string,
  ) {
    super(`${variable} ${problem}`);
    this.name = 'SandboxSettingsError';
  }
}

const bool = z
  .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1');
const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `100/60s` → 100 requests per 60 000 ms. */
const rateLimit = z
  .string()
  .regex(/^[1-9][0-9]*\/[1-9][0-9]*(ms|s|m|h)$/, 'must look like 100/60s (units ms, s, m, h)')
  .transform((v) => {
    const [limit, window] = v.split('/') as [string, string];
    const [, amount, unit] = /^([0-9]+)(ms|s|m|h)$/.exec(window) as RegExpExecArray;
    return { limit: Number(limit), windowMs: Number(amount) * (UNIT_MS[unit as string] as number) };
  });

const Env = z.object({
  SANDBOX_PORT: int(0, 65535).default(4010),
  SANDBOX_HOST: z.string().min(1).default('127.0.0.1'),
  SANDBOX_METER_LOCK: bool.default(true),
  SANDBOX_DELAY_MS: int(0, 3_600_000).default(95_000),
  SANDBOX_ACCESS_IN: int(1, 31_536_000).default(3600),
  SANDBOX_RATE_LIMIT: rateLimit.optional(),
});

/** The `SANDBOX_*` variables of `env` (unset or empty: the default). Throws {@link SandboxSettingsError}. */
export function sandboxSettings(env: NodeJS.ProcessEnv): SandboxSettings {
  const present = Object.fromEntries(
    Object.entries(env).filter(([k, v]) => k.startsWith('SANDBOX_') && v !== undefined && v !== ''),
  );
  const parsed = Env.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SandboxSettingsError(String(issue?.path[0]), issue?.message ?? 'is invalid');
  }
  const s = parsed.data;
  return {
    port: s.SANDBOX_PORT,
    host: s.SANDBOX_HOST,
    meterLock: s.SANDBOX_METER_LOCK,
    delayMs: s.SANDBOX_DELAY_MS,
    accessIn: s.SANDBOX_ACCESS_IN,
    rateLimit: s.SANDBOX_RATE_LIMIT ?? null,
  };
}

/**
 * Where another process reaches the sandbox these settings start (`npm start`'s embedded one or
 * `npm run sandbox`): `0.0.0.0` is dialled on loopback; null for `SANDBOX_PORT=0` (any free port,
 * so nobody else can know it).
 */
export function sandboxUrl(settings: Pick<SandboxSettings, 'host' | 'port'>): string | null {
  if (settings.port === 0) return null;
  const host = settings.host === '0.0.0.0' ? '127.0.0.1' : settings.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${settings.port}`;
}
