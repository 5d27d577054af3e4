export * from './types';
export * from './store';
export * from '../queue';
export { PurchaseLifecycle } from './lifecycle/runner';
export { settingsFromConfig } from './settings';
export {
  PurchaseNotFoundError,
  PurchaseNotSettledError,
  type PurchaseNotifier,
  type PurchaseSettlement,
  type NotifyReason,
} from './hand-over';
export {
  createPurchaseDesk,
  newExternalReference,
  InvalidIntentError,
  type RunningPurchaseDesk,
} from './desk';
export { purchaseRequest } from './request';
