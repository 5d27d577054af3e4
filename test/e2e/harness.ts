import axios from 'axios';
import { startGateway, type Gateway, type GatewayOptions } from '../../src/gateway/app';
import { loadConfig } from '../../src/config';
import { TEST_PIN_SECRET } from '../../src/agents/pin-secret';
import { TEST_TOKEN_KEY } from '../../src/records/sealing';
import { testRecordsEnv } from '../support/database';
import { until } from '../support/wait';

/**
 * End-to-end helpers: a whole gateway (`startGateway`, as `npm start` runs it) on ephemeral
 * ports, dialled over real HTTP in the Africa's Talking wire format.
 */

export async function startTestGateway(
  env: Record<string, string> = {},
  options: GatewayOptions = {},
): Promise<Gateway> {
  // Records in a schema of its own on the test PostgreSQL, dropped when the gateway closes,
  // unless the test names the database (two instances sharing one).
  const records = env.DATABASE_URL || env.DATA_DIR ? undefined : testRecordsEnv();
  const config = loadConfig({
    PORT: '0',
    SANDBOX_PORT: '0',
    PAYMENT_SANDBOX_PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    RECONCILE_BASE_DELAY_MS: '50',
    // The keys every process sharing a test's PostgreSQL agrees on (a test may set its own).
    AGENT_PIN_SECRET: TEST_PIN_SECRET,
    TOKEN_ENCRYPTION_KEY: TEST_TOKEN_KEY,
    ...records?.env,
    ...env,
  });
  const gateway = await startGateway(config, { host: '127.0.0.1', ...options });
  if (!records) return gateway;
  return {
    ...gateway,
    async close() {
      await gateway.close();
      await records.drop();
    },
  };
}

export interface Reply {
  status: number;
  body: string;
  end: boolean;
  screen: string;
}

/** One hop: `text` is the whole dialogue so far joined by `*`, as Africa's Talking sends it. */
export async function hop(
  gateway: Pick<Gateway, 'url'>,
  sessionId: string,
  phone: string,
  text: string,
  query = '',
): Promise<Reply> {
  const response = await axios.post(
    `${gateway.url}/ussd/africastalking${query}`,
    new URLSearchParams({
      sessionId,
      phoneNumber: `+${phone}`,
      serviceCode: '*384*1#',
      networkCode: '99999',
      text,
    }),
    { validateStatus: () => true, responseType: 'text' },
  );
  const body = String(response.data);
  return { status: response.status, body, end: body.startsWith('END '), screen: body.slice(4) };
}

/** Play inputs one hop at a time (the first hop is the dial itself); returns every reply. */
export async function dialogue(
  gateway: Pick<Gateway, 'url'>,
  sessionId: string,
  phone: string,
  inputs: string[],
): Promise<Reply[]> {
  const replies = [await hop(gateway, sessionId, phone, '')];
  const typed: string[] = [];
  for (const input of inputs) {
    typed.push(input);
    replies.push(await hop(gateway, sessionId, phone, typed.join('*')));
  }
  return replies;
}

export interface OutboxMessage {
  to: string;
  from?: string;
  message: string;
  parts: number;
  encoding: string;
  createdAt: string;
  purchaseId?: string;
}

/** The admin token e2e gateways with a configured purchase service protect `/dev/sms` with. */
export const OUTBOX_ADMIN_TOKEN = 'e2e-admin-token-0123456789';

export async function outbox(gateway: Gateway, to: string): Promise<OutboxMessage[]> {
  const response = await axios.get(`${gateway.url}/dev/sms`, {
    params: { to },
    headers: { authorization: `Bearer ${OUTBOX_ADMIN_TOKEN}` },
  });
  return response.data.messages as OutboxMessage[];
}

/** Wait (bounded) for `count` SMS to `to`; returns them newest first. */
export async function waitForSms(
  gateway: Gateway,
  to: string,
  count = 1,
  timeoutMs = 15000,
): Promise<OutboxMessage[]> {
  return until(
    `${count} SMS to ${to}`,
    async () => {
      const messages = await outbox(gateway, to);
      return messages.length >= count ? messages : null;
    },
    { timeoutMs },
  );
}

export interface LedgerRow {
  id: number;
  status: string;
  external_reference: string | null;
  subscriber_identifier: string;
  debited_minor: number;
  token: string | null;
}

export async function ledger(purchaseServiceUrl: string): Promise<LedgerRow[]> {
  return (await axios.get(`${purchaseServiceUrl}/sandbox/transactions`)).data as LedgerRow[];
}

/** Distinct subscriber numbers per test, so outbox filters never see another test's SMS. */
let nextPhone = 0;
export function newPhone(): string {
  nextPhone += 1;
  return `2677${String(1000000 + ((process.pid * 97 + nextPhone * 7919) % 9000000)).padStart(7, '0')}`;
}
