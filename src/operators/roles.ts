/**
 * Who may do what on the admin API (`/admin`), in one table: the console hides what a role may
 * not do, but this is where it is refused (src/operators/admin-auth.ts answers 403). A path not
 * listed here changes nothing when read; any other change needs `admin`.
 */

export const ROLES = ['viewer', 'care', 'finance', 'agents', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/**
 * `read`: every list and record, masked; `reveal`: full numbers and tokens (audited); `care`:
 * purchases, SMS, cases, the notice, the blocklist; `finance`: money moved by hand (float
 * credits and adjustments, agents' top-ups, unmatched payments, payments of unknown outcome,
 * the reconciliation's mismatch queue); `agents`: the network
 * (register, approve a retailer, block, PIN reset, dealer); `admin`: anything else.
 */
export type Permission = 'read' | 'reveal' | 'care' | 'finance' | 'agents' | 'admin';

const GRANTS: Record<Role, readonly Permission[]> = {
  viewer: ['read'],
  care: ['read', 'reveal', 'care'],
  finance: ['read', 'reveal', 'finance'],
  agents: ['read', 'reveal', 'agents'],
  admin: ['read', 'reveal', 'care', 'finance', 'agents', 'admin'],
};

/**
 * What each change under `/admin` needs (the path without `/admin` and the query), and whether
 * its domain writes its own audit entry with the operator's name (else the gate writes one).
 */
const CHANGES: ReadonlyArray<[method: string, path: RegExp, needs: Permission, selfAudited: boolean]> = [
  ['POST', /^\/purchases\/[^/]+\/(resolve|reconcile|resend-sms)$/, 'care', true],
  ['POST', /^\/sms\/undelivered\/resend$/, 'care', false],
  ['POST', /^\/cases$/, 'care', true],
  ['POST', /^\/cases\/[^/]+\/close$/, 'care', true],
  ['PUT', /^\/notice$/, 'care', true],
  ['DELETE', /^\/notice$/, 'care', true],
  ['POST', /^\/blocklist$/, 'care', false],
  ['DELETE', /^\/blocklist\/[^/]+\/[^/]+$/, 'care', false],
  ['POST', /^\/payments\/unmatched\/[^/]+\/resolve$/, 'finance', true],
  ['POST', /^\/payments\/unknown\/[^/]+\/review$/, 'finance', true],
  ['POST', /^\/reconciliation\/mismatches\/[^/]+\/(assign|note|close)$/, 'finance', true],
  ['POST', /^\/agents\/deposits\/[^/]+\/(approve|reject)$/, 'finance', false],
  ['POST', /^\/agents\/[^/]+\/(credits|adjustments)$/, 'finance', false],
  ['POST', /^\/agents$/, 'agents', false],
  ['POST', /^\/agents\/registrations\/[^/]+\/(approve|reject)$/, 'agents', false],
  ['POST', /^\/agents\/[^/]+\/(assistants|disable|enable|dealer|reset-pin)$/, 'agents', false],
];

const clean = (path: string): string => (path.length > 1 ? path.replace(/\/+$/, '') : path);
const changeOf = (method: string, path: string) =>
  CHANGES.find(([m, pattern]) => m === method && pattern.test(clean(path)));

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function permissionsOf(role: Role): readonly Permission[] {
  return GRANTS[role];
}

export function roleMay(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

/** Whether a request changes something (everything but GET and HEAD). */
export const isChange = (method: string): boolean => method !== 'GET' && method !== 'HEAD';

/** What a request to `/admin<path>` needs: `read` to read, `reveal` with `?reveal=true`, the table's for a change. */
export function permissionFor(method: string, path: string, reveal: boolean): Permission {
  if (!isChange(method)) return reveal ? 'reveal' : 'read';
  return changeOf(method, path)?.[2] ?? 'admin';
}

/** Whether a change's own domain audits it under the operator's name (the gate then adds nothing). */
export function auditsItself(method: string, path: string): boolean {
  return changeOf(method, path)?.[3] ?? false;
}
