import type { SmsQueue } from '../messaging/queue';
import type { Locales } from '../i18n';
import type { AuditTrail } from '../purchases/care/audit';
import { CaseDesk } from '../purchases/care/cases';
import type { CareContact } from '../purchases/care/settings';
import { PurchaseHistory } from '../purchases/history';
import { DelayNotices } from '../purchases/notify/delay-notice';
import type { PurchaseDesk } from '../purchases/types';
import type { Database } from '../records/database';
import { DialCallers } from './caller-on-dial';
import { forgetSubscriber, type ForgetReport } from './forget';
import { NoticeBoard } from './notice';
import { METERED_PRODUCTS, SqlSavedMeters } from './saved-meters';

export { DialCallers, type CallerOnDial } from './caller-on-dial';
export { forgetSubscriber, type ForgetReport } from './forget';
export { ALL_LANGUAGES, NoticeBoard, NoticeInputError, type NoticeText } from './notice';
export { noticeRoutes } from './notice-routes';
export { MAX_SAVED_METERS, METERED_PRODUCTS, SqlSavedMeters, type SavedMeter } from './saved-meters';

/**
 * What a repeat buyer is given, for the dialogue (USSD and SMS) to call: the meters a
 * number bought for, its purchases as it sees them and the ones still in progress, the operator's
 * notice, complaint cases; and for the workers the "taking longer" SMS. See README.md.
 */
export interface SubscriberServices {
  /** The dial's one read: the caller's agent row, or none, and its saved meters (every metered product). */
  callers: DialCallers;
  savedMeters: SqlSavedMeters;
  history: PurchaseHistory;
  notices: NoticeBoard;
  cases: CaseDesk;
  delayNotices: DelayNotices;
  /** A data-deletion request for one number (the caller audits it). */
  forget(msisdn: string): Promise<ForgetReport>;
}

export interface SubscriberParts {
  records: Database;
  desk: Pick<PurchaseDesk, 'get' | 'resendSms'>;
  sms: Pick<SmsQueue, 'enqueue'>;
  locales: Locales;
  audit: AuditTrail;
  senderId?: string;
  /** `CARE_PHONE`/`CARE_HOURS`. */
  care: CareContact | null;
  /** `DELAY_NOTICE_S` in ms (0: never). */
  delayNoticeMs: number;
  /** The store the purchase lifecycle's settlement hook already remembers meters in. */
  savedMeters?: SqlSavedMeters;
}

export function subscriberServices(parts: SubscriberParts): SubscriberServices {
  const { records, sms, locales, audit, senderId, care } = parts;
  return {
    callers: new DialCallers(records, METERED_PRODUCTS),
    savedMeters: parts.savedMeters ?? new SqlSavedMeters(records),
    history: new PurchaseHistory(records),
    notices: new NoticeBoard({ db: records, audit }),
    cases: new CaseDesk({ db: records, purchases: parts.desk, sms, locales, audit, senderId, care }),
    delayNotices: new DelayNotices({
      db: records,
      queue: sms,
      locales,
      senderId,
      afterMs: parts.delayNoticeMs,
    }),
    forget: (msisdn) => forgetSubscriber(records, msisdn),
  };
}
