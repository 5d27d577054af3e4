import axios, { type AxiosResponse } from 'axios';
import { componentLogger, maskMsisdn, maskNumbersInText } from '../../observability/logger';
import { parseRetryAfter } from '../../vas/error-mapper';
import {
  PROVIDER_TIMEOUT_MS,
  type OutboundSms,
  type SendOutcome,
  type SmsDriver,
  type SmsSender,
} from '../sender';

const log = componentLogger('sms-http');

export interface HttpSmsConfig {
  /** Webhook that accepts `POST { id, to, from, message }` as JSON. */
  url: string;
  /** Sent as `Authorization: Bearer <token>` when set. */
  bearerToken?: string;
  from?: string;
  timeoutMs: number;
}

/** `SMS_DRIVER=http`: SMS_HTTP_URL (and SMS_HTTP_TOKEN) from the config. */
export const httpDriver: SmsDriver<HttpSmsConfig> = {
  settings(sms) {
    if (!sms.http) throw new Error('SMS_DRIVER=http needs SMS_HTTP_URL');
    return {
      url: sms.http.url,
      bearerToken: sms.http.token,
      from: sms.senderId,
      timeoutMs: PROVIDER_TIMEOUT_MS,
    };
  },
  create: (settings) => new HttpSmsSender(settings),
};

/** Generic JSON webhook for providers without a dedicated driver. The `id` lets the peer de-duplicate. */
export class HttpSmsSender implements SmsSender {
  readonly name = 'http';

  constructor(private readonly config: HttpSmsConfig) {}

  async send(sms: OutboundSms): Promise<SendOutcome> {
    const body = { id: sms.id, to: sms.to, from: sms.from ?? this.config.from ?? null, message: sms.message };
    let outcome: SendOutcome;
    try {
      const res = await axios.post(this.config.url, body, {
        headers: {
          'Content-Type': 'application/json',
          ...(this.config.bearerToken && { Authorization: `Bearer ${this.config.bearerToken}` }),
        },
        timeout: this.config.timeoutMs,
        validateStatus: () => true,
        responseType: 'text',
        transformResponse: (data: string) => data,
      });
      outcome = classify(res);
    } catch (err) {
      const reason = `sms webhook unreachable: ${axios.isAxiosError(err) ? (err.code ?? err.message) : String(err)}`;
      outcome = { status: 'retry', reason };
    }
    const fields = { smsId: sms.id, to: maskMsisdn(sms.to), ...outcome };
    if (outcome.status === 'sent') log.info('sms sent', fields);
    else log.warn('sms not sent', fields);
    return outcome;
  }
}

/**
 * 2xx → sent (a JSON `id`/`messageId` in the reply becomes the provider id); 408/429/5xx → retry (honouring
 * Retry-After); 401/403 → retry (misconfigured token: never drop messages for it); other 4xx → rejected.
 */
export function classify(res: Pick<AxiosResponse, 'status' | 'data' | 'headers'>): SendOutcome {
  const text = typeof res.data === 'string' ? res.data : '';
  if (res.status >= 200 && res.status < 300) {
    // The webhook names one id for the whole message (a peer reports per message, as AT does).
    const id = providerIdOf(text);
    return { status: 'sent', ...(id !== undefined && { providerMessageIds: [id] }) };
  }
  if (res.status === 408 || res.status === 429 || res.status >= 500 || res.status < 200) {
    const header = (res.headers as Record<string, unknown>)['retry-after'];
    const after = parseRetryAfter(typeof header === 'string' ? header : undefined);
    return {
      status: 'retry',
      reason: `sms webhook HTTP ${res.status}`,
      ...(after !== null && { retryAfterMs: after }),
    };
  }
  if (res.status === 401 || res.status === 403) {
    // Our token is wrong: an operator must fix it, and the token SMS must survive until then.
    return { status: 'retry', reason: `sms webhook refused our credentials (HTTP ${res.status})` };
  }
  if (res.status >= 300 && res.status < 400)
    return { status: 'retry', reason: `sms webhook HTTP ${res.status} (redirect)` };
  return {
    status: 'rejected',
    reason: `sms webhook HTTP ${res.status}: ${maskNumbersInText(text.slice(0, 200))}`,
  };
}

function providerIdOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { id?: unknown; messageId?: unknown };
    const id = parsed.messageId ?? parsed.id;
    return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
  } catch {
    return undefined;
  }
}
