/**
 * Operator fault injection (`POST /sandbox/faults`): the purchase service's endpoints and fault
 * kinds, on the shared fault book (`kit/faults.ts`).
 */
import { SandboxError } from './errors';
import { Faults as FaultBook, type Fault as KitFault } from './kit/faults';

export { Timers } from './kit/timers';

export const FAULT_ENDPOINTS = [
  'login',
  'refresh',
  'vas-products',
  'accounts',
  'validate',
  'confirm',
  'retry',
] as const;
export const FAULT_KINDS = [
  'provider_timeout',
  'provider_unavailable',
  'internal_error',
  'slow',
  'drop',
  'upstream_error',
  'provider_error',
  'proxy_page',
] as const;

export type FaultEndpoint = (typeof FAULT_ENDPOINTS)[number];
export type FaultKind = (typeof FAULT_KINDS)[number];

export type Fault = KitFault<FaultKind>;

/** Default of `completes`: the ambiguous faults complete, the clean refusals do not. */
export function defaultCompletes(kind: FaultKind): boolean {
  return kind === 'provider_timeout' || kind === 'slow' || kind === 'drop' || kind === 'proxy_page';
}

/**
 * A page a proxy or load balancer in front of the service answers (`proxy_page`): a 404 in HTML,
 * no error envelope. The error handler renders it as such.
 */
export class ProxyPage extends Error {
  readonly status = 404;
  readonly body = '<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>';
  constructor() {
    super('proxy page (sandbox fault)');
    this.name = 'ProxyPage';
  }
}

export class Faults extends FaultBook<FaultEndpoint, FaultKind> {}

/** The error a fault answers with (`slow` and `drop` have none). */
export function faultError(kind: FaultKind): SandboxError | ProxyPage {
  switch (kind) {
    case 'provider_error':
      return new SandboxError('provider_error', 'The provider declined the purchase (sandbox fault)');
    case 'upstream_error':
      return new SandboxError('upstream_error', 'The upstream provider call failed (sandbox fault)');
    case 'proxy_page':
      return new ProxyPage();
    case 'provider_timeout':
      return new SandboxError(
        'provider_timeout',
        'The provider did not respond in time; the transaction state is unknown: use retry, do not re-confirm',
      );
    case 'provider_unavailable':
      return new SandboxError('provider_unavailable', 'The provider is unreachable');
    default:
      return new SandboxError('internal_error', 'Unexpected server error (sandbox fault)');
  }
}
