import { localDayBounds } from '../../i18n/local-time';
import { pullTransactions, type DarajaPullAnswer } from './daraja-pull';
import { MPESA_ZONE } from './mpesa-portal';
import { StatementFormatError } from './types';

/** What the Pull Transactions API needs: the app's credentials and the registered shortcode. */
export interface DarajaPullSettings {
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
  shortcode: string;
  timeoutMs: number;
}

/** Pages asked at most for one window (a page is up to 1000 transactions). */
const MAX_PAGES = 200;

/** `2026-12-01 08:36:00` in East Africa Time, as the API takes its window. */
function eat(at: Date): string {
  return new Intl.DateTimeFormat('sv-SE', {
    timeZone: MPESA_ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(at);
}

async function call(url: string, init: RequestInit, timeoutMs: number): Promise<unknown> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  if (!response.ok) throw new Error(`Daraja answered ${response.status} to ${new URL(url).pathname}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new StatementFormatError(`Daraja's answer to ${new URL(url).pathname} is not JSON`);
  }
}

/**
 * The C2B transactions of one local day (`timeZone`), every page, as one pull answer whose
 * content is only the transactions (so the same day pulled twice is the same statement).
 */
export async function pullDarajaDay(
  settings: DarajaPullSettings,
  day: string,
  timeZone: string,
): Promise<string> {
  const { from, to } = localDayBounds(day, timeZone);
  const basic = Buffer.from(`${settings.consumerKey}:${settings.consumerSecret}`).toString('base64');
  const token = (await call(
    `${settings.baseUrl}/oauth/v1/generate?grant_type=client_credentials`,
    { headers: { Authorization: `Basic ${basic}` } },
    settings.timeoutMs,
  )) as { access_token?: unknown };
  if (typeof token.access_token !== 'string') throw new Error('Daraja gave no access token');
  const all: Record<string, unknown>[] = [];
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = (await call(
      `${settings.baseUrl}/pulltransactions/v1/query`,
      {
        method: 'POST',
        headers: { Authorization: `Bearer ${token.access_token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          ShortCode: settings.shortcode,
          StartDate: eat(from),
          EndDate: eat(new Date(to.getTime() - 1000)),
          OffSetValue: String(all.length),
        }),
      },
      settings.timeoutMs,
    )) as DarajaPullAnswer;
    const transactions = pullTransactions(answer);
    if (transactions.length === 0) break;
    all.push(...transactions);
  }
  return JSON.stringify({ ResponseCode: '1000', ResponseMessage: 'Success', Response: [all] });
}
