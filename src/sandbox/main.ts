/**
 * `npm run sandbox`: the sandbox standalone. Configuration from the environment, validated;
 * a bad value stops the start with one clear line.
 */
import { runStandalone } from './kit/standalone';
import { SANDBOX_CREDENTIALS, startSandbox } from './index';
import { sandboxSettings } from './settings';

runStandalone('sandbox', sandboxSettings, startSandbox, (sandbox, settings) => ({
  message: 'sandbox listening',
  service: 'sandbox',
  url: sandbox.url,
  meter_lock: settings.meterLock,
  delay_ms: settings.delayMs,
  access_in: settings.accessIn,
  rate_limit: settings.rateLimit,
  credentials_hint: `client_id=${SANDBOX_CREDENTIALS.clientId} identifier=${SANDBOX_CREDENTIALS.username} org_code=${SANDBOX_CREDENTIALS.orgCode} (secrets in src/sandbox/README.md)`,
  scenarios: `${sandbox.url}/sandbox/scenarios`,
}));
