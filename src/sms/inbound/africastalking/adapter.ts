import type { DeliveryReport, DeliveryState } from '../../../messaging/sender';
import { wireTable } from '../../../http/wire-table';
import {
  fieldsOf,
  isInboundParseError,
  type InboundHttpRequest,
  type InboundParseError,
  type InboundSms,
  type InboundSmsAdapter,
} from '../types';

/** Longest field we accept: an inbound SMS is at most a few concatenated parts. */
const MAX_FIELD = 1600;

/** Africa's Talking delivery statuses → our three states. */
const STATES = wireTable<DeliveryState>({
  Success: 'delivered',
  Sent: 'pending',
  Buffered: 'pending',
  Rejected: 'failed',
  Failed: 'failed',
  Expired: 'failed',
});

function required(
  fields: Record<string, unknown>,
  names: readonly string[],
): Record<string, string> | InboundParseError {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = fields[name];
    if (value === undefined || value === null) return { error: `missing field: ${name}` };
    if (typeof value !== 'string') return { error: `field ${name} must be text` };
    if (value.length > MAX_FIELD) return { error: `field ${name} is too long` };
    out[name] = value;
  }
  return out;
}

/**
 * Africa's Talking incoming messages (`POST /sms/africastalking`, form fields `id`, `text`,
 * `from`, `to`, `date`, optional `linkId`, `networkCode`) and delivery reports
 * (`POST /sms/africastalking/delivery`: `id`, `status`, optional `failureReason`,
 * `networkCode`, `retryCount`).
 */
export const africasTalkingInbound: InboundSmsAdapter = {
  name: 'africastalking',
  path: 'africastalking',

  parseMessage(req: InboundHttpRequest): InboundSms | InboundParseError {
    const fields = fieldsOf(req.body);
    if (!fields) return { error: 'expected a form body' };
    const got = required(fields, ['id', 'text', 'from', 'to', 'date']);
    if (isInboundParseError(got)) return got;
    if (got.id.trim() === '') return { error: 'field id is empty' };
    if (got.from.trim() === '') return { error: 'field from is empty' };
    return {
      provider: 'africastalking',
      messageId: got.id.trim(),
      from: got.from.trim(),
      to: got.to.trim(),
      text: got.text,
      receivedAt: got.date,
    };
  },

  parseDelivery(req: InboundHttpRequest): DeliveryReport | InboundParseError {
    const fields = fieldsOf(req.body);
    if (!fields) return { error: 'expected a form body' };
    const got = required(fields, ['id', 'status']);
    if (isInboundParseError(got)) return got;
    const state = STATES.get(got.status);
    if (!state) return { error: `field status must be one of ${STATES.keys.join(', ')}` };
    const reason =
      typeof fields.failureReason === 'string' && fields.failureReason !== '' ? fields.failureReason : null;
    return {
      provider: 'africastalking',
      providerMessageId: got.id.trim(),
      state,
      providerStatus: got.status,
      failureReason: reason ? reason.slice(0, 200) : null,
    };
  },
};
