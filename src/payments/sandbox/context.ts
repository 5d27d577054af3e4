/**
 * What the two wire formats share: the ledger and payers, callbacks, faults, timers, access
 * tokens, and the one error type each wire renders in its own envelope.
 */
import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import type { Callbacks } from './callbacks';
import type { FaultKind, FaultOperation, Faults, Timers } from './faults';
import type { Ledger } from './ledger';
import type { Payments } from './payments';

/** A refusal with its HTTP status and the exact body the wire format answers. */
export class WireError extends Error {
  constructor(
    readonly status: number,
    readonly body: object,
  ) {
    super(JSON.stringify(body));
    this.name = 'WireError';
  }
}

/** Bearer tokens by product; a token of one product is refused by the other's routes. */
export class AccessTokens {
  private readonly tokens = new Map<string, { product: string; expiresAt: number }>();

  constructor(private readonly lifetimeS: number) {}

  issue(product: string): { token: string; expiresIn: number } {
    const token = randomBytes(18).toString('base64url');
    this.tokens.set(token, { product, expiresAt: Date.now() + this.lifetimeS * 1000 });
    return { token, expiresIn: this.lifetimeS };
  }

  /** Whether `Authorization: Bearer <token>` names a live token of one of `products`. */
  valid(authorization: string | undefined, products: readonly string[]): boolean {
    const match = /^Bearer (\S+)$/.exec(authorization ?? '');
    const entry = match ? this.tokens.get(match[1]) : undefined;
    return !!entry && entry.expiresAt > Date.now() && products.includes(entry.product);
  }
}

/** `Authorization: Basic` → [user, password], or null. */
export function basicCredentials(authorization: string | undefined): [string, string] | null {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(authorization ?? '');
  if (!match) return null;
  const text = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon < 0 ? null : [text.slice(0, colon), text.slice(colon + 1)];
}

export interface Context {
  ledger: Ledger;
  payments: Payments;
  callbacks: Callbacks;
  faults: Faults;
  timers: Timers;
  tokens: AccessTokens;
}

/**
 * Runs `work` under the fault armed on `operation`: `slow` answers late, `drop` closes the
 * socket without an answer, the 5xx kinds answer `failure(kind)`. `work` runs first when the
 * fault `completes` (the request was carried out, only its answer is lost or late).
 * Resolves to null when nothing must be answered.
 */
export async function withFault<T>(
  ctx: Context,
  operation: FaultOperation,
  req: Request,
  failure: (kind: FaultKind) => WireError,
  work: () => T,
): Promise<{ value: T } | null> {
  const fault = ctx.faults.take(operation);
  if (!fault) return { value: work() };
  const value = fault.completes || fault.fault === 'slow' ? work() : undefined;
  if (fault.fault === 'slow') {
    await ctx.timers.sleep(fault.delayMs);
    return { value: value as T };
  }
  if (fault.fault === 'drop') {
    req.socket.destroy();
    return null;
  }
  throw failure(fault.fault);
}

/** A URL the sandbox may call back: absolute http(s). */
export function isCallbackUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
