/** Shared helpers of the sandbox contract suite: a real sandbox on port 0, spoken to with axios. */
import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import {
  SANDBOX_CREDENTIALS,
  startSandbox,
  TEST_METERS,
  type RunningSandbox,
  type SandboxOptions,
} from '../../src/sandbox';

export interface Harness {
  sandbox: RunningSandbox;
  http: AxiosInstance;
  token: string;
  refreshToken: string;
}

export const MONEY = /^[A-Z]{3} -?[0-9]+\.[0-9]{2}$/;
export const SINGLE_TOKEN = /^[0-9]{4}( [0-9]{4}){4}$/;

export async function harness(opts: SandboxOptions = {}): Promise<Harness> {
  const sandbox = await startSandbox({ port: 0, silent: true, ...opts });
  const http = axios.create({ baseURL: sandbox.url, validateStatus: () => true });
  const login = await http.post('/public/v1/auth/login', loginBody());
  if (login.status !== 200) throw new Error(`login failed: ${login.status}`);
  return { sandbox, http, token: login.data.access_token, refreshToken: login.data.refresh_token };
}

export function loginBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_id: SANDBOX_CREDENTIALS.clientId,
    client_secret: SANDBOX_CREDENTIALS.clientSecret,
    grant_type: 'password',
    identifier: SANDBOX_CREDENTIALS.username,
    secret_pass: SANDBOX_CREDENTIALS.password,
    org_code: SANDBOX_CREDENTIALS.orgCode,
    source_channel: 'WEB',
    ...overrides,
  };
}

export function purchaseBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    source_channel: 'USSD',
    language: 'en-BW',
    product_type: 'ELECTRICITY',
    provider_code: 'BPC',
    debited_account_id: 1001,
    beneficiary_phone_number: '26771234567',
    subscriber_identifier: TEST_METERS.active,
    amount: 100,
    currency: 'BWP',
    ...overrides,
  };
}

export function legacyBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    source_channel: 'SMS_MO',
    language: 'en-BW',
    source_tag: 'gateway',
    debited_account_id: 1001,
    beneficiary_phone_number: '26771234567',
    meter_number: TEST_METERS.active,
    amount: 100,
    currency: 'BWP',
    date: '2025-01-01 10:00:00',
    ...overrides,
  };
}

export function auth(h: Harness, token = h.token): { headers: Record<string, string> } {
  return { headers: { Authorization: `Bearer ${token}` } };
}

export function post(h: Harness, path: string, body: unknown): Promise<AxiosResponse> {
  return h.http.post(path, body, auth(h));
}

/** Balance of one of the caller's accounts in minor units. */
export async function balanceMinor(h: Harness, accountId = 1001): Promise<number> {
  const res = await h.http.get(`/public/v1/accounts/${accountId}`, auth(h));
  return toMinor(res.data.balance);
}

export function toMinor(money: string): number {
  const match = /^[A-Z]{3} (-?)([0-9]+)\.([0-9]{2})$/.exec(money);
  if (!match) throw new Error(`not a money string: ${money}`);
  const minor = Number(match[2]) * 100 + Number(match[3]);
  return match[1] ? -minor : minor;
}

/** Polls `probe` until it returns a value (bounded; no fixed sleeps). */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Asserts a v1 error envelope with all seven fields. */
export function expectV1Error(res: AxiosResponse, status: number, code: string, param?: string | null): void {
  expect({ status: res.status, code: res.data?.error?.code }).toEqual({ status, code });
  const error = res.data.error;
  expect(Object.keys(res.data)).toEqual(['error']);
  expect(Object.keys(error).sort()).toEqual(
    ['code', 'doc_url', 'message', 'param', 'request_id', 'retryable', 'type'].sort(),
  );
  expect(typeof error.message).toBe('string');
  expect(typeof error.retryable).toBe('boolean');
  expect(error.request_id).toBe(res.headers['x-request-id']);
  if (param !== undefined) expect(error.param).toBe(param);
}
