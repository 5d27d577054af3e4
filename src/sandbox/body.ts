/**
 * Request-body decoding: each endpoint declares its fields in document order; the first field
 * that is absent or of the wrong shape yields a 400 naming it (`missing_field` /
 * `invalid_argument` / `invalid_amount`). Unknown fields are ignored.
 */
import { SandboxError } from './errors';
import { parseAmount } from './money';

export type FieldKind = 'string' | 'integer' | 'boolean' | 'amount';

export interface FieldRule {
  name: string;
  kind: FieldKind;
  required: boolean;
  values?: readonly string[];
  pattern?: RegExp;
  maxLength?: number;
  /** Empty strings pass (the identifier rules downstream give the precise code). */
  allowEmpty?: boolean;
}

export type Decoded = Record<string, string | number | boolean | undefined>;

/** Decodes `body` against `rules`; amounts come back in minor units. */
export function decode(body: unknown, rules: readonly FieldRule[]): Decoded {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new SandboxError('invalid_argument', 'Request body must be a JSON object');
  }
  const input = body as Record<string, unknown>;
  const out: Decoded = {};
  for (const rule of rules) {
    const value = input[rule.name];
    if (value === undefined || value === null) {
      if (rule.required) throw new SandboxError('missing_field', `${rule.name} is required`, rule.name);
      continue;
    }
    out[rule.name] = check(rule, value);
  }
  return out;
}

function check(rule: FieldRule, value: unknown): string | number | boolean {
  const bad = (why: string): SandboxError =>
    new SandboxError('invalid_argument', `${rule.name} ${why}`, rule.name);
  switch (rule.kind) {
    case 'amount': {
      const minor = parseAmount(value);
      if (minor === null) {
        throw new SandboxError(
          'invalid_amount',
          'amount must be a positive JSON number with at most two decimals',
          rule.name,
        );
      }
      return minor;
    }
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw bad('must be an integer');
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw bad('must be a boolean');
      return value;
    case 'string': {
      if (typeof value !== 'string') throw bad('must be a string');
      if (value.length === 0 && !rule.allowEmpty) throw bad('must not be empty');
      if (rule.maxLength !== undefined && value.length > rule.maxLength) {
        throw bad(`must be at most ${rule.maxLength} characters`);
      }
      if (rule.values && !rule.values.includes(value)) throw bad(`must be one of ${rule.values.join(', ')}`);
      if (rule.pattern && !rule.pattern.test(value)) throw bad(`has an invalid format`);
      return value;
    }
  }
}

export const V1_CHANNELS = ['WEB', 'SMART_APP', 'USSD', 'BATCH', 'POS'] as const;
export const LEGACY_CHANNELS = ['WEB', 'SMART_APP', 'USSD', 'SMS_MO', 'BATCH'] as const;
const LANGUAGE = /^[a-z]{2}-[A-Z]{2}$/;
const CURRENCY = /^[A-Z]{3}$/;
const DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

export const LOGIN_RULES: readonly FieldRule[] = [
  { name: 'client_id', kind: 'string', required: true, allowEmpty: true },
  { name: 'client_secret', kind: 'string', required: true, allowEmpty: true },
  { name: 'grant_type', kind: 'string', required: true, values: ['password'] },
  { name: 'identifier', kind: 'string', required: true, allowEmpty: true },
  { name: 'secret_pass', kind: 'string', required: true, allowEmpty: true },
  { name: 'org_code', kind: 'string', required: true, allowEmpty: true },
  { name: 'source_channel', kind: 'string', required: true, maxLength: 32 },
];

export const REFRESH_RULES: readonly FieldRule[] = [
  { name: 'refresh_token', kind: 'string', required: true },
];

/** v1 validate/confirm body (4.1). */
export const V1_PURCHASE_RULES: readonly FieldRule[] = [
  { name: 'source_channel', kind: 'string', required: true, values: V1_CHANNELS },
  { name: 'language', kind: 'string', required: true, pattern: LANGUAGE },
  { name: 'product_type', kind: 'string', required: true, values: ['ELECTRICITY', 'AIRTIME', 'WATER'] },
  { name: 'provider_code', kind: 'string', required: true, maxLength: 32 },
  { name: 'debited_account_id', kind: 'integer', required: true },
  { name: 'beneficiary_phone_number', kind: 'string', required: true, allowEmpty: true, maxLength: 32 },
  { name: 'subscriber_identifier', kind: 'string', required: true, allowEmpty: true, maxLength: 64 },
  { name: 'amount', kind: 'amount', required: true },
  { name: 'currency', kind: 'string', required: true, pattern: CURRENCY },
  { name: 'charges_on_top_flag', kind: 'boolean', required: false },
  { name: 'comment', kind: 'string', required: false, allowEmpty: true, maxLength: 500 },
  { name: 'external_reference', kind: 'string', required: false, maxLength: 100 },
];

/** v1 retry body (4.1): the lookup key is required, channel and language optional. */
export const V1_RETRY_RULES: readonly FieldRule[] = [
  { name: 'source_channel', kind: 'string', required: false, values: V1_CHANNELS },
  { name: 'language', kind: 'string', required: false, pattern: LANGUAGE },
  { name: 'subscriber_identifier', kind: 'string', required: true, maxLength: 64 },
  { name: 'external_reference', kind: 'string', required: true, maxLength: 100 },
];

/** Legacy validate/confirm body (4.2). */
export const LEGACY_PURCHASE_RULES: readonly FieldRule[] = [
  { name: 'source_channel', kind: 'string', required: true, values: LEGACY_CHANNELS },
  { name: 'language', kind: 'string', required: true, pattern: LANGUAGE },
  { name: 'source_tag', kind: 'string', required: false, allowEmpty: true, maxLength: 100 },
  { name: 'debited_account_id', kind: 'integer', required: true },
  { name: 'beneficiary_phone_number', kind: 'string', required: true, allowEmpty: true, maxLength: 32 },
  { name: 'meter_number', kind: 'string', required: true, allowEmpty: true, maxLength: 64 },
  { name: 'amount', kind: 'amount', required: true },
  { name: 'currency', kind: 'string', required: true, pattern: CURRENCY },
  { name: 'charges_on_top_flag', kind: 'boolean', required: false },
  { name: 'comment', kind: 'string', required: false, allowEmpty: true, maxLength: 500 },
  { name: 'external_reference', kind: 'string', required: false, maxLength: 100 },
  { name: 'hard_validate', kind: 'boolean', required: false },
  { name: 'send_requester_sms', kind: 'boolean', required: false },
  { name: 'send_requester_email', kind: 'boolean', required: false },
  { name: 'send_beneficiary_sms', kind: 'boolean', required: false },
  { name: 'send_beneficiary_email', kind: 'boolean', required: false },
  { name: 'date', kind: 'string', required: false, pattern: DATE },
];

/** Legacy retry body (4.2). */
export const LEGACY_RETRY_RULES: readonly FieldRule[] = [
  { name: 'date', kind: 'string', required: false, pattern: DATE },
  { name: 'external_reference', kind: 'string', required: true, maxLength: 100 },
  { name: 'language', kind: 'string', required: false, pattern: LANGUAGE },
  { name: 'meter_number', kind: 'string', required: true, maxLength: 64 },
  { name: 'source_channel', kind: 'string', required: false, values: LEGACY_CHANNELS },
  { name: 'source_tag', kind: 'string', required: false, allowEmpty: true, maxLength: 100 },
];
