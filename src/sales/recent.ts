import type { PurchaseDesk, PurchaseRecord } from '../purchases/types';

/** How many of an agent's sales "Last sales" (USSD) and SALES (SMS) show. */
export const LAST_SALES_SHOWN = 5;

/**
 * An agent's last sales, newest first: its purchases as requester that it sold as an agent
 * (not what it bought for itself), the same list on every channel.
 */
export async function agentLastSales(
  desk: Pick<PurchaseDesk, 'listByMsisdn'>,
  msisdn: string,
): Promise<PurchaseRecord[]> {
  return (await desk.listByMsisdn(msisdn, { limit: 50 }))
    .filter((r) => r.intent.agent?.msisdn === msisdn)
    .slice(0, LAST_SALES_SHOWN);
}
