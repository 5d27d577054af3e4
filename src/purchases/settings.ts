import type { LifecycleSettings } from './lifecycle/machine';

/** The configuration the lifecycle reads. */
export interface LifecycleConfig {
  purchaseApi: { confirmTimeoutMs: number };
  reconcile: {
    deadlineMs: number;
    baseDelayMs: number;
    recheckMs?: number;
    managedRetryAccountIds?: readonly number[];
    managedRetryWindowMs?: number;
  };
}

/** Lifecycle settings from the gateway configuration, with test overrides. */
export function settingsFromConfig(
  config: LifecycleConfig,
  overrides: Partial<LifecycleSettings> = {},
): LifecycleSettings {
  return {
    confirmTimeoutMs: config.purchaseApi.confirmTimeoutMs,
    inFlightMarginMs: 30_000,
    lostConfirmMarginMs: 5_000,
    baseDelayMs: config.reconcile.baseDelayMs,
    maxDelayMs: 5 * 60_000,
    deadlineMs: config.reconcile.deadlineMs,
    maxConfirmAttempts: 5,
    recheckForMs: config.reconcile.recheckMs ?? 24 * 3600_000,
    recheckEveryMs: 5 * 60_000,
    managedRetryAccountIds: config.reconcile.managedRetryAccountIds ?? [],
    managedRetryWindowMs: config.reconcile.managedRetryWindowMs ?? 30 * 60_000,
    ...overrides,
  };
}
