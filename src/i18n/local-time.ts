/**
 * Dates and times as the operator's subscribers read them: in the operator's zone (`TZ`,
 * default Africa/Gaborone), never UTC. One place, so limits, lockouts and screens agree on
 * what "today" is.
 */

/** The local calendar day of `at` in `timeZone`, as `YYYY-MM-DD` (en-CA formats dates so). */
export function localDay(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);
}

/** `HH:MM` (24 h) of `at` in `timeZone`. */
export function localTime(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit' }).format(at);
}

/** The calendar day after `day` (`2026-11-23` → `2026-11-24`): when a daily limit resets. */
export function nextDay(day: string): string {
  const d = new Date(`${day}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}
