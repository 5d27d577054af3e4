/**
 * Dates shown to people are the operator's local dates (`TZ`, default Africa/Gaborone), never
 * UTC: a purchase at 00:30 in Gaborone is dated that day, not the day before.
 */

/** `YYYY-MM-DD` of an instant (a Date or an ISO string) in an IANA time zone. */
export function localDate(at: Date | string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(typeof at === 'string' ? new Date(at) : at);
}
