/**
 * The embedded payment sandbox: M-Pesa Daraja and MTN MoMo Collections over real HTTP, one
 * ledger, test payers with scripted behaviours, for `npm start`, tests and the simulator.
 */
import { serveSandbox, type RunningSandbox, type ServeOptions } from '../../sandbox/kit/serve';
import { createPaymentSandboxApp } from './app';
import { DARAJA_DEFAULTS, type DarajaSettings } from './daraja';
import { MOMO_DEFAULTS, type MomoSettings } from './momo';

export { DARAJA_DEFAULTS, DARAJA_RESULTS, type DarajaSettings } from './daraja';
export { MOMO_DEFAULTS, MOMO_REASONS, type MomoSettings } from './momo';
export { BEHAVIOURS, TEST_PAYERS, type Behaviour, type Payer } from './payers';
export { FAULT_KINDS, FAULT_OPERATIONS, type FaultKind, type FaultOperation } from './faults';

export interface PaymentSandboxOptions extends ServeOptions {
  /** Before an answering payer (and any unlisted number) answers; default 300. */
  approveDelayMs?: number;
  /** Before a `late_success` payer pays; default 360 000 (past Daraja's ~90 s and MoMo's 5 min). */
  lateSuccessDelayMs?: number;
  /** Before an unanswered prompt (`no_answer`, `manual`) expires; default 60 000. */
  promptExpiryMs?: number;
  /** Before an accepted refund completes; default 300. */
  refundDelayMs?: number;
  /** What a number that is not a test payer does: `approve` (default) or `manual` (the simulator). */
  unlisted?: 'approve' | 'manual';
  /** Daraja's credentials and currency (defaults {@link DARAJA_DEFAULTS}). */
  daraja?: Partial<DarajaSettings>;
  /** MoMo's credentials, keys and target environment (defaults {@link MOMO_DEFAULTS}). */
  momo?: Partial<MomoSettings>;
  /** Access token lifetime in seconds; default 3600. */
  tokenLifetimeS?: number;
}

export type RunningPaymentSandbox = RunningSandbox;

/** Starts the payment sandbox on real HTTP; `close()` also cancels pending outcomes and callbacks. */
export function startPaymentSandbox(opts: PaymentSandboxOptions = {}): Promise<RunningPaymentSandbox> {
  return serveSandbox('payment-sandbox', opts, (logger) =>
    createPaymentSandboxApp(
      {
        approveDelayMs: opts.approveDelayMs ?? 300,
        lateSuccessDelayMs: opts.lateSuccessDelayMs ?? 360_000,
        promptExpiryMs: opts.promptExpiryMs ?? 60_000,
        refundDelayMs: opts.refundDelayMs ?? 300,
        unlisted: opts.unlisted ?? 'approve',
        daraja: { ...DARAJA_DEFAULTS, ...opts.daraja },
        momo: { ...MOMO_DEFAULTS, ...opts.momo },
        tokenLifetimeS: opts.tokenLifetimeS ?? 3600,
      },
      logger,
    ),
  );
}
