export { composeAgentReceipt, composeOutcomeSms, type ComposedSms } from './compose';
export { createNotifier, type NotifierOptions } from './notifier';
export { PurchaseNotSettledError, type PurchaseNotifier, type NotifyReason } from '../hand-over';
export { UndeliveredSms, undeliveredResendKey, type ResendReport, type ResendSms } from './undelivered';
