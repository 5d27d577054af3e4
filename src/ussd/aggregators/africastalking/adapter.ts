import { wireTable } from '../../../http/wire-table';
import type { UssdAdapter, UssdHttpRequest, UssdParseError, UssdSessionEnd } from '../../types';
import { bodyOf, conEnd, isError, MAX_TEXT, PHONE, SERVICE_CODE, SESSION_ID } from '../../wire';

/**
 * Africa's Talking USSD: form-encoded hops with cumulative `text`, `CON `/`END ` text/plain
 * replies, and end-of-session notifications with `status` Success | Incomplete | Failed.
 * The wire format, field by field: src/ussd/README.md (Africa's Talking).
 */

const NAME = 'africastalking';

/** Vendor status words → our end statuses (one literal table). */
const END_STATUS = wireTable<UssdSessionEnd['status']>({
  Success: 'completed',
  Incomplete: 'incomplete',
  Failed: 'failed',
});

type Form = Record<string, unknown>;

/** A required single string field (a form's values are strings); `allowEmpty` for `text`. */
function field(form: Form, name: string, allowEmpty = false): string | UssdParseError {
  const value = form[name];
  if (value === undefined) return { error: `missing field: ${name}` };
  if (typeof value !== 'string') return { error: `field ${name} must be a single value` };
  const trimmed = value.trim();
  if (!allowEmpty && trimmed === '') return { error: `missing field: ${name}` };
  return trimmed;
}

/** The form of a hop or an end notification, with the session and the caller's number. */
function formOf(req: UssdHttpRequest): { form: Form; sessionId: string; msisdn: string } | UssdParseError {
  if (req.method !== 'POST') return { error: 'expected POST' };
  const form = bodyOf(req, 'an application/x-www-form-urlencoded body');
  if (isError(form)) return form;
  const sessionId = field(form, 'sessionId');
  if (isError(sessionId)) return sessionId;
  if (!SESSION_ID.test(sessionId)) return { error: 'field sessionId has unexpected characters' };
  // E.164 with `+`; a `+` a caller forgot to URL-encode arrives as a space, trimmed away.
  const phone = field(form, 'phoneNumber');
  if (isError(phone)) return phone;
  if (!PHONE.test(phone))
    return { error: 'field phoneNumber must be an E.164 number (+ and 7 to 15 digits)' };
  return { form, sessionId, msisdn: phone.replace(/^\+/, '') };
}

function optional(form: Form, name: string): string | undefined {
  const value = form[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

export const africasTalkingAdapter: UssdAdapter = {
  name: NAME,

  parseHop(req) {
    const hop = formOf(req);
    if (isError(hop)) return hop;
    const { form, sessionId, msisdn } = hop;
    const serviceCode = field(form, 'serviceCode');
    if (isError(serviceCode)) return serviceCode;
    if (!SERVICE_CODE.test(serviceCode)) return { error: 'field serviceCode has unexpected characters' };
    const text = field(form, 'text', true);
    if (isError(text)) return text;
    if (text.length > MAX_TEXT) return { error: `field text is longer than ${MAX_TEXT} characters` };
    return {
      aggregator: NAME,
      sessionId,
      msisdn,
      serviceCode,
      text: { kind: 'cumulative', value: text },
      isNew: text === '',
      // The first hop's text is what was dialled after the service code (a shortcut); the engine
      // reads it only on a session's first hop.
      ...(text !== '' && { dialled: text }),
      network: optional(form, 'networkCode'),
      raw: form,
    };
  },

  formatReply: conEnd,

  parseEnd(req) {
    const end = formOf(req);
    if (isError(end)) return end;
    const status = field(end.form, 'status');
    if (isError(status)) return status;
    const mapped = END_STATUS.get(status);
    if (mapped === undefined) return { error: 'field status must be Success, Incomplete or Failed' };
    return { aggregator: NAME, sessionId: end.sessionId, msisdn: end.msisdn, status: mapped };
  },
};
