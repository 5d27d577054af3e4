import { z } from 'zod';
import {
  fieldsOf,
  type InboundHttpRequest,
  type InboundParseError,
  type InboundSms,
  type InboundSmsAdapter,
} from '../types';

const text = (max: number) => z.string().max(max);

/** `{ id?, from, to, text, receivedAt }`: for SMSCs and aggregators without an adapter yet. */
const GenericInboundSchema = z.object({
  id: text(200).nullable().optional(),
  from: text(64).min(1),
  to: text(64),
  text: text(1600),
  receivedAt: text(64).min(1),
});

/** `POST /sms/inbound` with a JSON body (also where the SMPP link's deliver_sm is fed in). */
export const genericInbound: InboundSmsAdapter = {
  name: 'generic',
  path: 'inbound',

  parseMessage(req: InboundHttpRequest): InboundSms | InboundParseError {
    const fields = fieldsOf(req.body);
    if (!fields) return { error: 'expected a JSON object body' };
    const parsed = GenericInboundSchema.safeParse(fields);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue.path.join('.') || '(body)';
      return {
        error:
          issue.code === 'invalid_type' && fields[field] === undefined
            ? `missing field: ${field}`
            : `field ${field}: ${issue.message}`,
      };
    }
    const body = parsed.data;
    const id = body.id?.trim();
    return {
      provider: 'generic',
      messageId: id ? id : null,
      from: body.from.trim(),
      to: body.to.trim(),
      text: body.text,
      receivedAt: body.receivedAt,
    };
  },
};
