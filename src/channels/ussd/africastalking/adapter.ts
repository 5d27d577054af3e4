import type {
  UssdAdapter,
  UssdHop,
  UssdHttpRequest,
  UssdHttpResponse,
  UssdParseError,
  UssdReply,
  UssdSessionEnd,
} from '../types';

/**
 * Africa's Talking USSD: form-encoded hops with cumulative `text`, `CON `/`END ` text/plain
 * replies, and end-of-session notifications with `status` Success | Incomplete | Failed.
 * The wire format, field by field: src/channels/ussd/README.md (Africa's Talking).
 */

const NAME = 'africastalking';

/** Session ids end up inside a Redis hash tag, so `{`/`}` and spaces are refused. */
const SESSION_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
/** E.164 with `+`; a `+` a caller forgot to URL-encode arrives as a space, trimmed away. */
const PHONE = /^\+?[1-9]\d{6,14}$/;
const SERVICE_CODE = /^[0-9*#A-Za-z]{1,32}$/;
const MAX_TEXT = 1000;

/** Vendor status words → our end statuses (one literal table). */
const END_STATUS: Record<string, UssdSessionEnd['status']> = {
  Success: 'completed',
  Incomplete: 'incomplete',
  Failed: 'failed',
};

type Form = Record<string, unknown>;

function formOf(req: UssdHttpRequest): Form | UssdParseError {
  if (req.method !== 'POST') return { error: 'expected POST' };
  const body = req.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return { error: 'expected an application/x-www-form-urlencoded body' };
  return body as Form;
}

/** A required single string field; `allowEmpty` for `text` (empty on the first hop). */
function field(form: Form, name: string, allowEmpty = false): string | UssdParseError {
  const value = form[name];
  if (value === undefined) return { error: `missing field: ${name}` };
  if (typeof value !== 'string') return { error: `field ${name} must be a single value` };
  const trimmed = value.trim();
  if (!allowEmpty && trimmed === '') return { error: `missing field: ${name}` };
  return trimmed;
}

function isError(value: unknown): value is UssdParseError {
  return typeof value === 'object' && value !== null && 'error' in value;
}

function common(form: Form): { sessionId: string; msisdn: string } | UssdParseError {
  const sessionId = field(form, 'sessionId');
  if (isError(sessionId)) return sessionId;
  if (!SESSION_ID.test(sessionId)) return { error: 'field sessionId has unexpected characters' };
  const phone = field(form, 'phoneNumber');
  if (isError(phone)) return phone;
  if (!PHONE.test(phone))
    return { error: 'field phoneNumber must be an E.164 number (+ and 7 to 15 digits)' };
  return { sessionId, msisdn: phone.replace(/^\+/, '') };
}

function optional(form: Form, name: string): string | undefined {
  const value = form[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

export const africasTalkingAdapter: UssdAdapter = {
  name: NAME,

  parseHop(req: UssdHttpRequest): UssdHop | UssdParseError {
    const form = formOf(req);
    if (isError(form)) return form;
    const ids = common(form);
    if (isError(ids)) return ids;
    const serviceCode = field(form, 'serviceCode');
    if (isError(serviceCode)) return serviceCode;
    if (!SERVICE_CODE.test(serviceCode)) return { error: 'field serviceCode has unexpected characters' };
    const text = field(form, 'text', true);
    if (isError(text)) return text;
    if (text.length > MAX_TEXT) return { error: `field text is longer than ${MAX_TEXT} characters` };
    return {
      aggregator: NAME,
      sessionId: ids.sessionId,
      msisdn: ids.msisdn,
      serviceCode,
      text: { kind: 'cumulative', value: text },
      isNew: text === '',
      network: optional(form, 'networkCode'),
      raw: form,
    };
  },

  formatReply(reply: UssdReply): UssdHttpResponse {
    return {
      status: 200,
      contentType: 'text/plain; charset=utf-8',
      body: `${reply.end ? 'END' : 'CON'} ${reply.text}`,
    };
  },

  parseEnd(req: UssdHttpRequest): UssdSessionEnd | UssdParseError {
    const form = formOf(req);
    if (isError(form)) return form;
    const ids = common(form);
    if (isError(ids)) return ids;
    const status = field(form, 'status');
    if (isError(status)) return status;
    const mapped = Object.hasOwn(END_STATUS, status) ? END_STATUS[status] : undefined;
    if (mapped === undefined) return { error: 'field status must be Success, Incomplete or Failed' };
    return { aggregator: NAME, sessionId: ids.sessionId, msisdn: ids.msisdn, status: mapped };
  },
};
