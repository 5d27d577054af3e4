import { localDay, localInstant, nextDay } from '../i18n/local-time';
import { componentLogger, maskMsisdn } from '../observability/logger';
import type { DayReconciliation } from './reconcile';
import type { Reconciliation } from './service';

const log = componentLogger('reconciliation');

export interface NightlyOptions {
  reconciliation: Reconciliation;
  timeZone: string;
  /** Reconcile yesterday each night at this local time (`RECONCILIATION_NIGHTLY_AT`), or not at all (null). */
  nightlyAt: { hour: number; minute: number } | null;
  /** Where a day that does not close is told. */
  alert: {
    webhookUrl?: string;
    msisdn?: string;
    sendSms?: (sms: { id: string; to: string; message: string }) => Promise<void>;
  };
  /** After each run (the gauge reads the table itself). */
  onRun?: (result: DayReconciliation) => void;
  clock?: () => Date;
}

export interface Nightly {
  /** Pull, reconcile and tell for `day` now (what the timer runs for yesterday). */
  run(day: string): Promise<DayReconciliation>;
  stop(): void;
}

/** The next local `hour:minute` in `zone` after `now`. */
export function nextLocalTime(now: Date, zone: string, at: { hour: number; minute: number }): Date {
  let day = localDay(now, zone);
  for (let i = 0; i < 3; i += 1) {
    const [year, month, date] = day.split('-').map(Number);
    const candidate = localInstant({ year, month, day: date, hour: at.hour, minute: at.minute }, zone);
    if (candidate > now) return candidate;
    day = nextDay(day);
  }
  return new Date(now.getTime() + 24 * 3600_000);
}

/** The longest a timer is set for: a far one is set again (setTimeout's limit, clock changes). */
const MAX_TIMER_MS = 6 * 3600_000;

/**
 * What runs by itself: the wallet's balance recorded at each local midnight (the day's
 * boundaries), and — when `nightlyAt` is set — yesterday pulled (where Daraja's API is set up),
 * reconciled, and told to finance when it does not close (a webhook, an SMS).
 */
export function startNightly(options: NightlyOptions): Nightly {
  const clock = options.clock ?? (() => new Date());
  const { reconciliation, timeZone } = options;
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;

  const every = (at: { hour: number; minute: number }, work: () => Promise<unknown>) => {
    const arm = () => {
      if (stopped) return;
      const due = nextLocalTime(clock(), timeZone, at);
      const wait = Math.min(due.getTime() - clock().getTime(), MAX_TIMER_MS);
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          if (clock() < due) return arm();
          void work().finally(arm);
        },
        Math.max(wait, 0),
      );
      timer.unref();
      timers.add(timer);
    };
    arm();
  };

  const tell = async (result: DayReconciliation) => {
    const text =
      `Reconciliation ${result.day} did not close: ${result.openCount} open` +
      (result.missing.length ? `, missing ${result.missing.join(', ')}` : '') +
      '. See GET /admin/reconciliation/mismatches';
    const { webhookUrl, msisdn, sendSms } = options.alert;
    if (webhookUrl)
      await fetch(webhookUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          event: 'reconciliation_not_closed',
          day: result.day,
          open: result.open,
          openCount: result.openCount,
          missing: result.missing,
          text,
        }),
        signal: AbortSignal.timeout(10_000),
      }).then(
        (res) => {
          if (!res.ok) log.error('reconciliation webhook refused', { status: res.status });
        },
        (error: unknown) => log.error('reconciliation webhook failed', { error }),
      );
    if (msisdn && sendSms)
      await sendSms({ id: `reconciliation-${result.day}`, to: msisdn, message: text }).catch(
        (error: unknown) => log.error('reconciliation SMS failed', { error, to: maskMsisdn(msisdn) }),
      );
  };

  const run = async (day: string): Promise<DayReconciliation> => {
    await reconciliation
      .pull(day, 'reconciliation')
      .catch((error: unknown) =>
        log.error('statement pull failed: reconciling with what was imported', { error, day }),
      );
    const result = await reconciliation.day(day);
    options.onRun?.(result);
    if (result.status === 'closed') log.info('reconciliation closed', { day });
    else {
      log.error('RECONCILIATION DID NOT CLOSE', { day, open: result.open, missing: result.missing });
      await tell(result);
    }
    return result;
  };

  every({ hour: 0, minute: 0 }, () =>
    reconciliation
      .recordBalance('day boundary')
      .catch((error: unknown) => log.warn('wallet balance at the day boundary could not be read', { error })),
  );
  const nightlyAt = options.nightlyAt;
  if (nightlyAt)
    every(nightlyAt, () =>
      run(reconciliation.yesterday(clock())).catch((error: unknown) =>
        log.error('nightly reconciliation failed', { error }),
      ),
    );
  return {
    run,
    stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
