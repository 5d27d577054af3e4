import { componentLogger } from '../observability/logger';
import { MalformedResponseError, PurchaseServiceError } from './errors';

/**
 * Bearer tokens of section 5: log in with the OAuth client and integration user, refresh with
 * the refresh token before `access_in` runs out, and share one login/refresh among every
 * concurrent caller (single flight) so a burst of hops at expiry costs one round trip.
 * Tokens and secrets are never logged.
 */

const log = componentLogger('vas');

export interface Credentials {
  clientId: string;
  clientSecret: string;
  username: string;
  password: string;
  orgCode: string;
}

/** How the token manager reaches the service: one unauthenticated POST, answer body or a typed error. */
export type AuthPost = (
  operation: 'login' | 'refresh',
  path: string,
  body: object,
  requestId: string,
) => Promise<unknown>;

interface Grant {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: number;
  /** When to refresh proactively: 60 s before expiry, or at 80% of a short life. */
  refreshAt: number;
}

export interface TokenManagerOptions {
  now?: () => number;
}

export const LOGIN_PATH = '/public/v1/auth/login';
export const REFRESH_PATH = '/public/v1/auth/refresh';

export class TokenManager {
  private grant: Grant | null = null;
  private inFlight: Promise<Grant> | null = null;
  private readonly now: () => number;

  constructor(
    private readonly credentials: Credentials,
    private readonly post: AuthPost,
    options: TokenManagerOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /** A bearer token that is valid now, logging in or refreshing first when due. */
  async accessToken(requestId: string): Promise<string> {
    const grant = this.grant;
    const now = this.now();
    if (grant && now < grant.refreshAt) return grant.accessToken;
    if (grant && now < grant.expiresAt) {
      // Due but still valid: a failed early refresh must not fail the caller's call.
      try {
        return (await this.renew(requestId)).accessToken;
      } catch (error) {
        log.warn('early token refresh failed; using the current token', {
          operation: 'refresh',
          requestId,
          error,
        });
        return grant.accessToken;
      }
    }
    return (await this.renew(requestId)).accessToken;
  }

  /**
   * The service refused `staleToken` (401 invalid_credentials): get a new one, unless another
   * caller already did, so N rejected callers cause one refresh, not N.
   */
  async afterRejected(staleToken: string, requestId: string): Promise<string> {
    if (this.grant && this.grant.accessToken !== staleToken) return this.grant.accessToken;
    if (this.grant) this.grant = { ...this.grant, refreshAt: 0, expiresAt: 0 };
    return (await this.renew(requestId)).accessToken;
  }

  /** Forget the tokens (tests, credential rotation). */
  reset(): void {
    this.grant = null;
  }

  private renew(requestId: string): Promise<Grant> {
    if (!this.inFlight) {
      this.inFlight = this.obtain(requestId).finally(() => {
        this.inFlight = null;
      });
    }
    return this.inFlight;
  }

  private async obtain(requestId: string): Promise<Grant> {
    const refreshToken = this.grant?.refreshToken;
    if (refreshToken) {
      try {
        const body = await this.post('refresh', REFRESH_PATH, { refresh_token: refreshToken }, requestId);
        return this.store(body, refreshToken, requestId);
      } catch (error) {
        // A refused refresh (expired or unknown refresh token) falls back to a fresh login;
        // a network failure would fail the login too, so it is passed on.
        if (!(error instanceof PurchaseServiceError)) throw error;
        log.info('token refresh refused; logging in again', {
          operation: 'refresh',
          requestId,
          code: error.code,
        });
        this.grant = null;
      }
    }
    const body = await this.post(
      'login',
      LOGIN_PATH,
      {
        client_id: this.credentials.clientId,
        client_secret: this.credentials.clientSecret,
        grant_type: 'password',
        identifier: this.credentials.username,
        secret_pass: this.credentials.password,
        org_code: this.credentials.orgCode,
        source_channel: 'WEB',
      },
      requestId,
    );
    return this.store(body, null, requestId);
  }

  private store(body: unknown, previousRefreshToken: string | null, requestId: string): Grant {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const accessIn = typeof b.access_in === 'number' ? b.access_in : Number(b.access_in);
    if (
      typeof b.access_token !== 'string' ||
      b.access_token === '' ||
      !Number.isFinite(accessIn) ||
      accessIn <= 0
    ) {
      throw new MalformedResponseError(
        'login/refresh answer lacks access_token or access_in',
        requestId,
        200,
      );
    }
    const lifeMs = accessIn * 1000;
    const now = this.now();
    const grant: Grant = {
      accessToken: b.access_token,
      refreshToken:
        typeof b.refresh_token === 'string' && b.refresh_token !== ''
          ? b.refresh_token
          : previousRefreshToken,
      expiresAt: now + lifeMs,
      refreshAt: now + lifeMs - Math.min(60_000, lifeMs * 0.2),
    };
    this.grant = grant;
    return grant;
  }
}
