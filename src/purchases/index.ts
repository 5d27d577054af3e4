export * from './types';
export * from './store';
export * from './queue';
export {
  PurchaseLifecycle,
  PurchaseNotFoundError,
  PurchaseNotSettledError,
  settingsFromConfig,
  type PurchaseNotifier,
  type NotifyReason,
} from './lifecycle';
export {
  createPurchaseDesk,
  newExternalReference,
  InvalidIntentError,
  type RunningPurchaseDesk,
} from './desk';
export { purchaseRequest } from './request';
