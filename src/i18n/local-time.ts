/**
 * Dates and times as the operator's subscribers read them: in the operator's zone (`TZ`,
 * default Africa/Gaborone), never UTC — a purchase at 00:30 in Gaborone is dated that day. One
 * place, so limits, lockouts and screens agree on what "today" is.
 */

/**
 * Formatters by locale and zone: building an `Intl.DateTimeFormat` costs far more than using one,
 * and every purchase and spending check asks for the day.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(
  locale: string,
  timeZone: string,
  fields: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  const key = `${locale} ${timeZone}`;
  let found = formatters.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat(locale, { timeZone, ...fields });
    formatters.set(key, found);
  }
  return found;
}

/**
 * The last day worked out per zone, by UTC minute: every purchase and spending check asks for
 * "today", and a zone's offset is a whole number of minutes (everywhere since 1972), so one UTC
 * minute has one local day.
 */
const lastDays = new Map<string, { minute: number; day: string }>();

/** The local calendar day of `at` (a Date or an ISO string) in `timeZone`, as `YYYY-MM-DD`. */
export function localDay(at: Date | string, timeZone: string): string {
  const date = typeof at === 'string' ? new Date(at) : at;
  const minute = Math.floor(date.getTime() / 60_000);
  const last = lastDays.get(timeZone);
  if (last?.minute === minute) return last.day;
  // en-CA formats dates as YYYY-MM-DD.
  const day = formatter('en-CA', timeZone, { year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    date,
  );
  if (Number.isFinite(minute)) lastDays.set(timeZone, { minute, day });
  return day;
}

/** The same, under the name screens and messages use (a date shown to people). */
export const localDate = localDay;

/** `HH:MM` (24 h) of `at` in `timeZone`. */
export function localTime(at: Date, timeZone: string): string {
  return formatter('en-GB', timeZone, { hour: '2-digit', minute: '2-digit' }).format(at);
}

/** The calendar day after `day` (`2026-11-23` → `2026-11-24`): when a daily limit resets. */
export function nextDay(day: string): string {
  const d = new Date(`${day}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** Offsets by zone and quarter-hour (a zone's offset changes only on a quarter-hour). */
const offsets = new Map<string, number>();
const QUARTER_HOUR_MS = 900_000;

/** How far `timeZone` is ahead of UTC at `utcMs` (ms; the en-US formatter is used only here). */
function zoneOffsetMs(utcMs: number, timeZone: string): number {
  const key = `${timeZone} ${Math.floor(utcMs / QUARTER_HOUR_MS)}`;
  const known = offsets.get(key);
  if (known !== undefined) return known;
  if (offsets.size > 10_000) offsets.clear();
  const offset = computeOffsetMs(Math.floor(utcMs / QUARTER_HOUR_MS) * QUARTER_HOUR_MS, timeZone);
  offsets.set(key, offset);
  return offset;
}

function computeOffsetMs(utcMs: number, timeZone: string): number {
  const parts = Object.fromEntries(
    formatter('en-US', timeZone, {
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
      .formatToParts(new Date(utcMs))
      .filter((p) => p.type !== 'literal')
      .map((p) => [p.type, Number(p.value)]),
  ) as Record<string, number>;
  const asUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return asUtc - Math.floor(utcMs / 1000) * 1000;
}

/**
 * The instant a wall-clock time names in `timeZone` (`2026-11-23 00:00:00` in Africa/Gaborone →
 * 2026-11-22T22:00:00Z): statements and day boundaries are written in local time.
 */
export function localInstant(
  fields: { year: number; month: number; day: number; hour?: number; minute?: number; second?: number },
  timeZone: string,
): Date {
  const wall = Date.UTC(
    fields.year,
    fields.month - 1,
    fields.day,
    fields.hour ?? 0,
    fields.minute ?? 0,
    fields.second ?? 0,
  );
  const guess = wall - zoneOffsetMs(wall, timeZone);
  return new Date(wall - zoneOffsetMs(guess, timeZone));
}

/** `[from, to)` of the local day `day` (`YYYY-MM-DD`) in `timeZone`. */
export function localDayBounds(day: string, timeZone: string): { from: Date; to: Date } {
  const [year, month, date] = day.split('-').map(Number);
  const next = nextDay(day).split('-').map(Number);
  return {
    from: localInstant({ year, month, day: date }, timeZone),
    to: localInstant({ year: next[0], month: next[1], day: next[2] }, timeZone),
  };
}
