/**
 * Opaque bearer tokens (section 5). Access tokens expire after `accessIn` seconds; refresh
 * tokens do not expire and are not rotated (refresh answers the same refresh_token), so a
 * client that refreshes twice concurrently never locks itself out.
 */
import { randomBytes } from 'node:crypto';
import { SandboxError } from './errors';
import { ORGANISATION, SANDBOX_CREDENTIALS, USERS, type SandboxUser } from './fixtures';

export interface TokenResponse {
  access_token: string;
  access_in: number;
  token_type: 'bearer';
  refresh_token: string;
  scope: string;
}

interface AccessGrant {
  user: SandboxUser;
  expiresAt: number;
}

export class TokenStore {
  private readonly access = new Map<string, AccessGrant>();
  private readonly refresh = new Map<string, SandboxUser>();

  constructor(private readonly accessIn: number) {}

  /** Checks the login body (already shape-validated) and issues a token pair. */
  login(body: Record<string, string>): TokenResponse {
    const user = USERS.find((u) => u.username === body.identifier);
    const ok =
      body.client_id === SANDBOX_CREDENTIALS.clientId &&
      body.client_secret === SANDBOX_CREDENTIALS.clientSecret &&
      body.org_code === SANDBOX_CREDENTIALS.orgCode &&
      user !== undefined &&
      user.password === body.secret_pass;
    if (!ok || !user) {
      throw new SandboxError('invalid_credentials', 'Invalid client, user or organisation credentials');
    }
    const refreshToken = `sbx_rt_${randomBytes(24).toString('hex')}`;
    this.refresh.set(refreshToken, user);
    return this.issue(user, refreshToken);
  }

  /** Issues a new access token for a known refresh token. */
  refreshAccess(refreshToken: string): TokenResponse {
    const user = this.refresh.get(refreshToken);
    if (!user) throw new SandboxError('invalid_credentials', 'Unknown refresh token');
    return this.issue(user, refreshToken);
  }

  /** Resolves an `Authorization` header to its user, or throws 401 invalid_credentials. */
  authenticate(header: string | undefined): { user: SandboxUser; token: string } {
    if (!header) throw new SandboxError('invalid_credentials', 'Missing bearer token');
    const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(header.trim());
    if (!match) throw new SandboxError('invalid_credentials', 'Malformed Authorization header');
    const token = match[1] as string;
    const grant = this.access.get(token);
    if (!grant) throw new SandboxError('invalid_credentials', 'Unknown access token');
    if (Date.now() >= grant.expiresAt) {
      this.access.delete(token);
      throw new SandboxError('invalid_credentials', 'Access token expired');
    }
    return { user: grant.user, token };
  }

  private issue(user: SandboxUser, refreshToken: string): TokenResponse {
    const accessToken = `sbx_at_${randomBytes(24).toString('hex')}`;
    this.access.set(accessToken, { user, expiresAt: Date.now() + this.accessIn * 1000 });
    return {
      access_token: accessToken,
      access_in: this.accessIn,
      token_type: 'bearer',
      refresh_token: refreshToken,
      scope: 'read write',
    };
  }
}

/** Body of `GET /public/v1/auth/me`. */
export function meBody(user: SandboxUser): object {
  return {
    actor: { id: user.id, username: user.username, full_name: user.fullName },
    role: user.role,
    organisation: { code: ORGANISATION.code, name: ORGANISATION.name },
  };
}
