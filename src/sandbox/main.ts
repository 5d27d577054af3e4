/**
 * `npm run sandbox`: the sandbox standalone. Configuration from the environment, validated;
 * a bad value stops the start with one clear line.
 */
import { z } from 'zod';
import { SANDBOX_CREDENTIALS, startSandbox } from './index';

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

async function main(): Promise<void> {
  const present = Object.fromEntries(
    Object.entries(process.env).filter(([k, v]) => k.startsWith('SANDBOX_') && v !== undefined && v !== ''),
  );
  const parsed = Env.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    process.stderr.write(`sandbox: invalid configuration: ${String(issue?.path[0])} ${issue?.message}\n`);
    process.exit(1);
  }
  const env = parsed.data;
  const sandbox = await startSandbox({
    port: env.SANDBOX_PORT,
    host: env.SANDBOX_HOST,
    meterLock: env.SANDBOX_METER_LOCK,
    delayMs: env.SANDBOX_DELAY_MS,
    accessIn: env.SANDBOX_ACCESS_IN,
    rateLimit: env.SANDBOX_RATE_LIMIT ?? null,
  });
  process.stdout.write(
    `${JSON.stringify({
      level: 'info',
      message: 'sandbox listening',
      service: 'sandbox',
      url: sandbox.url,
      meter_lock: env.SANDBOX_METER_LOCK,
      delay_ms: env.SANDBOX_DELAY_MS,
      access_in: env.SANDBOX_ACCESS_IN,
      rate_limit: env.SANDBOX_RATE_LIMIT ?? null,
      credentials_hint: `client_id=${SANDBOX_CREDENTIALS.clientId} identifier=${SANDBOX_CREDENTIALS.username} org_code=${SANDBOX_CREDENTIALS.orgCode} (secrets in src/sandbox/README.md)`,
      scenarios: `${sandbox.url}/sandbox/scenarios`,
    })}\n`,
  );
  const stop = (): void => {
    sandbox.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`sandbox: unclean stop: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`sandbox: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
