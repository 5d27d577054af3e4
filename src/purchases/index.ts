export * from './types';
export * from './store';
export * from './queue';
export {
  PurchaseEngine,
  PurchaseNotFoundError,
  PurchaseNotSettledError,
  settingsFromConfig,
  type PurchaseNotifier,
  type NotifyReason,
} from './engine';
export {
  createPurchaseDesk,
  newExternalReference,
  InvalidIntentError,
  type PurchaseDeskHandle,
} from './desk';
export { purchaseRequest } from './request';
