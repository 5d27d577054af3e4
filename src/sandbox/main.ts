/**
 * `npm run sandbox`: the sandbox standalone. Configuration from the environment, validated;
 * a bad value stops the start with one clear line.
 */
import { SANDBOX_CREDENTIALS, startSandbox } from './index';
import { sandboxSettings, SandboxSettingsError, type SandboxSettings } from './settings';

async function main(): Promise<void> {
  let settings: SandboxSettings;
  try {
    settings = sandboxSettings(process.env);
  } catch (error) {
    if (!(error instanceof SandboxSettingsError)) throw error;
    process.stderr.write(`sandbox: invalid configuration: ${error.message}\n`);
    process.exit(1);
  }
  const sandbox = await startSandbox(settings);
  // Handlers first: whoever reads "sandbox listening" may stop the process at once.
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
  process.stdout.write(
    `${JSON.stringify({
      level: 'info',
      message: 'sandbox listening',
      service: 'sandbox',
      url: sandbox.url,
      meter_lock: settings.meterLock,
      delay_ms: settings.delayMs,
      access_in: settings.accessIn,
      rate_limit: settings.rateLimit,
      credentials_hint: `client_id=${SANDBOX_CREDENTIALS.clientId} identifier=${SANDBOX_CREDENTIALS.username} org_code=${SANDBOX_CREDENTIALS.orgCode} (secrets in src/sandbox/README.md)`,
      scenarios: `${sandbox.url}/sandbox/scenarios`,
    })}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`sandbox: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
