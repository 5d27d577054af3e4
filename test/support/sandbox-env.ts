import { SANDBOX_CREDENTIALS } from '../../src/sandbox';

/** The gateway's environment for a purchase service that is a sandbox at `url`, signed in with the sandbox's credentials. */
export function sandboxServiceEnv(url: string): Record<string, string> {
  return {
    PURCHASE_API_BASE_URL: url,
    PURCHASE_API_CLIENT_ID: SANDBOX_CREDENTIALS.clientId,
    PURCHASE_API_CLIENT_SECRET: SANDBOX_CREDENTIALS.clientSecret,
    PURCHASE_API_USERNAME: SANDBOX_CREDENTIALS.username,
    PURCHASE_API_PASSWORD: SANDBOX_CREDENTIALS.password,
    PURCHASE_API_ORG_CODE: SANDBOX_CREDENTIALS.orgCode,
  };
}
