import axios, { type AxiosResponse } from 'axios';
import { componentLogger, maskMsisdn, maskNumbersInText } from '../../observability/logger';
import { parseRetryAfter } from '../../vas/error-mapper';
import { wireTable } from '../../http/wire-table';
import {
  PROVIDER_TIMEOUT_MS,
  type OutboundSms,
  type SendOutcome,
  type SmsDriver,
  type SmsSender,
} from '../sender';

const log = componentLogger('sms-africastalking');

export interface AfricasTalkingConfig {
  /** e.g. `https://api.africastalking.com` (sandbox: `https://api.sandbox.africastalking.com`). */
  baseUrl: string;
  username: string;
  apiKey: string;
  /** Sender id or short code; the account default when absent. */
  from?: string;
  timeoutMs: number;
}

type Verdict = 'sent' | 'retry' | 'rejected';

/**
 * Per-recipient `statusCode` → what the caller should do. Codes that an operator can fix (risk hold,
 * sender id, balance) retry so the token SMS survives until they do; unknown codes retry too.
 */
export const RECIPIENT_STATUS = wireTable<[Verdict, string]>({
  100: ['sent', 'Processed'],
  101: ['sent', 'Sent'],
  102: ['sent', 'Queued'],
  401: ['retry', 'RiskHold'],
  402: ['retry', 'InvalidSenderId'],
  403: ['rejected', 'InvalidPhoneNumber'],
  404: ['rejected', 'UnsupportedNumberType'],
  405: ['retry', 'InsufficientBalance'],
  406: ['rejected', 'UserInBlacklist'],
  407: ['rejected', 'CouldNotRoute'],
  409: ['retry', 'DoNotDisturbRejection'],
  500: ['retry', 'InternalServerError'],
  501: ['retry', 'GatewayError'],
  502: ['retry', 'RejectedByGateway'],
});

interface Recipient {
  statusCode?: number;
  status?: string;
  messageId?: string;
}

/** `SMS_DRIVER=africastalking`: AT_USERNAME, AT_API_KEY (and AT_SMS_URL) from the config. */
export const africasTalkingDriver: SmsDriver<AfricasTalkingConfig> = {
  settings(sms) {
    if (!sms.africastalking) throw new Error('SMS_DRIVER=africastalking needs AT_USERNAME and AT_API_KEY');
    return { ...sms.africastalking, from: sms.senderId, timeoutMs: PROVIDER_TIMEOUT_MS };
  },
  create: (settings) => new AfricasTalkingSender(settings),
};

/** Africa's Talking bulk messaging API (`POST /version1/messaging`), one recipient per call. */
export class AfricasTalkingSender implements SmsSender {
  readonly name = 'africastalking';

  constructor(private readonly config: AfricasTalkingConfig) {}

  async send(sms: OutboundSms): Promise<SendOutcome> {
    const form = new URLSearchParams({
      username: this.config.username,
      to: `+${sms.to}`,
      message: sms.message,
    });
    const from = sms.from ?? this.config.from;
    if (from) form.set('from', from);
    form.set('bulkSMSMode', '1');
    let res: AxiosResponse;
    try {
      res = await axios.post(
        `${this.config.baseUrl.replace(/\/$/, '')}/version1/messaging`,
        form.toString(),
        {
          headers: {
            apiKey: this.config.apiKey,
            Accept: 'application/json',
            'Content-Type': 'application/x-www-form-urlencoded',
          },
          timeout: this.config.timeoutMs,
          validateStatus: () => true,
          responseType: 'text',
          transformResponse: (body: string) => body,
        },
      );
    } catch (err) {
      const reason = `africastalking unreachable: ${axios.isAxiosError(err) ? (err.code ?? err.message) : String(err)}`;
      return this.outcome(sms, { status: 'retry', reason });
    }
    return this.outcome(sms, classify(res));
  }

  private outcome(sms: OutboundSms, outcome: SendOutcome): SendOutcome {
    const fields = { smsId: sms.id, to: maskMsisdn(sms.to), ...outcome };
    if (outcome.status === 'sent') log.info('sms sent', fields);
    else if (outcome.reason.includes('credentials')) log.error('sms not sent', fields);
    else log.warn('sms not sent', fields);
    return outcome;
  }
}

/** HTTP reply → outcome. Exported for tests. */
export function classify(res: Pick<AxiosResponse, 'status' | 'data' | 'headers'>): SendOutcome {
  const body = typeof res.data === 'string' ? res.data : JSON.stringify(res.data ?? '');
  const snippet = maskNumbersInText(body.slice(0, 200));
  if (res.status === 401 || res.status === 403) {
    // A bad key or username must not silently drop tokens: retry, loudly, until an operator fixes it.
    return {
      status: 'retry',
      reason: `africastalking refused our credentials (HTTP ${res.status}): check username and apiKey`,
    };
  }
  if (res.status === 408 || res.status === 429 || res.status >= 500) {
    const after = parseRetryAfter(headerOf(res.headers, 'retry-after'));
    return {
      status: 'retry',
      reason: `africastalking HTTP ${res.status}`,
      ...(after !== null && { retryAfterMs: after }),
    };
  }
  if (res.status < 200 || res.status >= 300) {
    return { status: 'rejected', reason: `africastalking HTTP ${res.status}: ${snippet}` };
  }
  const recipient = firstRecipient(body);
  if (!recipient || typeof recipient.statusCode !== 'number') {
    return { status: 'retry', reason: `africastalking reply without a recipient status: ${snippet}` };
  }
  const [verdict, label] = RECIPIENT_STATUS.get(recipient.statusCode) ?? [
    'retry',
    recipient.status ?? 'unknown',
  ];
  // One id however many parts the SMS took (the recipient's messageParts): AT reports per message.
  if (verdict === 'sent')
    return { status: 'sent', ...(recipient.messageId && { providerMessageIds: [recipient.messageId] }) };
  return { status: verdict, reason: `africastalking ${recipient.statusCode} ${label}` };
}

function firstRecipient(body: string): Recipient | undefined {
  try {
    const parsed = JSON.parse(body) as { SMSMessageData?: { Recipients?: Recipient[] } };
    return parsed.SMSMessageData?.Recipients?.[0];
  } catch {
    return undefined;
  }
}

function headerOf(headers: unknown, name: string): string | undefined {
  const value = (headers as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}
