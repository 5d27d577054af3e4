import { parseDecimalAmount, parseMoney, MoneyFormatError, type Money } from '../../vas/money';
import { AgentInputError } from '../errors';
import { parsePercent } from '../commission';

/**
 * The operator's input as typed (JSON from `/admin/agents` or the CLI's words) checked and read:
 * required text, whole numbers, percentages, yes/no, amounts in the floats' currency, local days.
 * Each refusal is an AgentInputError naming the field; nothing is written before these pass.
 */

/** Most rows one list answers. */
export const MAX_LIST = 500;

export function text(field: string, value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number')
    throw new AgentInputError(field, `${field} is required`);
  const s = String(value).trim();
  if (s === '') throw new AgentInputError(field, `${field} is required`);
  return s;
}

export function percent(field: string, value: unknown): number {
  const bp = typeof value === 'string' ? parsePercent(value.includes('%') ? value : `${value}%`) : null;
  if (bp === null) throw new AgentInputError(field, `${field} must be a percentage such as 20%`);
  return bp;
}

export function wholeNumber(field: string, value: unknown, max = 1_000_000, min = 1): number {
  const s = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\d+$/.test(s) || Number(s) < min || Number(s) > max)
    throw new AgentInputError(field, `${field} must be a whole number from ${min} to ${max}`);
  return Number(s);
}

/** A yes/no from JSON or a form: `true`/`false` (booleans or their words). */
export function flag(field: string, value: unknown): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new AgentInputError(field, `${field} must be true or false`);
}

/** An amount in `currency` (`BWP 500.00` or `500.00`): positive, or non-zero when `signed`. */
export function moneyInput(field: string, value: unknown, signed: boolean, currency: string): Money {
  const raw = typeof value === 'number' ? String(value) : value;
  if (typeof raw !== 'string')
    throw new AgentInputError(field, `${field} must be an amount such as "${currency} 500.00"`);
  let money: Money;
  try {
    if (/^[A-Z]{3} /.test(raw.trim())) money = parseMoney(raw);
    else {
      const negative = signed && raw.trim().startsWith('-');
      const parsed = parseDecimalAmount(negative ? raw.trim().slice(1) : raw);
      if (!parsed.ok) throw new MoneyFormatError(raw, parsed.reason);
      money = { currency, minor: negative ? -parsed.minor : parsed.minor };
    }
  } catch (error) {
    if (!(error instanceof MoneyFormatError)) throw error;
    throw new AgentInputError(
      field,
      `${field} must be an amount such as "${currency} 500.00" (at most two decimals)`,
    );
  }
  if (money.currency !== currency) throw new AgentInputError(field, `${field} must be in ${currency}`);
  if (signed ? money.minor === 0 : money.minor <= 0)
    throw new AgentInputError(field, `${field} must be ${signed ? 'non-zero' : 'positive'}`);
  return money;
}

/** Offset of `zone` from UTC at `at` (ms). */
function zoneOffset(at: number, zone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
      .formatToParts(new Date(at))
      .map((p) => [p.type, Number(p.value)]),
  );
  return (
    Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second) -
    Math.floor(at / 1000) * 1000
  );
}

/** A local day's start in `zone` (or the next day's, for an inclusive `to`), or an ISO time as given. */
export function instant(field: string, value: unknown, zone: string, endOfDay: boolean): Date {
  const s = typeof value === 'string' ? value.trim() : '';
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (day) {
    const utcMidnight = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]) + (endOfDay ? 1 : 0));
    const guess = utcMidnight - zoneOffset(utcMidnight, zone);
    return new Date(utcMidnight - zoneOffset(guess, zone));
  }
  const at = Date.parse(s);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(s) || Number.isNaN(at))
    throw new AgentInputError(
      field,
      `${field} must be a day (2026-11-23) or an ISO time (2026-11-23T08:00:00Z)`,
    );
  return new Date(at);
}
