import { z } from 'zod';
import type { UssdAdapter } from '../types';
import { bodyOf, callerOf, isError, json, optionalText, text } from '../wire';

/**
 * A configurable JSON aggregator (`USSD_GENERIC_MAPPING`), for the telco gateways and
 * aggregators without an adapter: where each field lives (`a.b` for nested ones), whether the
 * input is cumulative or the latest only, how a new session and an end are signalled, and the
 * reply's shape (its text and end fields, and request fields echoed back).
 */
const NAME = 'generic';

const scalar = z.union([z.string(), z.number(), z.boolean()]);
/** A field of the JSON body; `a.b` reaches into nested objects. */
const field = z.string().min(1).max(100);
const signal = z.object({ field, equals: scalar }).strict();

export const GenericMappingSchema = z
  .object({
    sessionId: field,
    msisdn: field,
    serviceCode: field.optional(),
    text: field,
    input: z.enum(['cumulative', 'latest']),
    newSession: signal.optional(),
    end: signal.optional(),
    reply: z
      .object({
        text: field,
        end: field,
        endValue: scalar.default(true),
        continueValue: scalar.default(false),
        /** Request fields copied into every reply at the same place (a session id the gateway wants back). */
        echo: z.array(field).max(20).default([]),
      })
      .strict()
      .refine((r) => r.text !== r.end, {
        message: 'the text and the end flag need two fields',
        path: ['end'],
      })
      .refine((r) => r.endValue !== r.continueValue, {
        message: 'endValue and continueValue must differ',
        path: ['endValue'],
      }),
  })
  .strict()
  .refine(
    (m) =>
      !m.newSession ||
      !m.end ||
      m.newSession.field !== m.end.field ||
      String(m.newSession.equals) !== String(m.end.equals),
    { message: 'the new-session and end signals are the same', path: ['end'] },
  );

export type GenericMapping = z.infer<typeof GenericMappingSchema>;

/** Parses `USSD_GENERIC_MAPPING`; throws one line naming what is wrong. */
export function parseGenericMapping(raw: string): GenericMapping {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new Error(`not JSON: ${(error as Error).message}`);
  }
  const parsed = GenericMappingSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue.path.join('.') || '(mapping)'}: ${issue.message}`);
  }
  return parsed.data;
}

/** The value at `path` (`a.b` into nested objects; a key with a dot in it is read as is). */
function valueAt(body: Record<string, unknown>, path: string): unknown {
  if (path in body) return body[path];
  let value: unknown = body;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Sets `value` at `path` in `target`, making the nested objects on the way. */
function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    node = (node[part] = next !== null && typeof next === 'object' ? next : {}) as Record<string, unknown>;
  }
  node[parts[parts.length - 1]] = value;
}

const matches = (
  body: Record<string, unknown>,
  s: { field: string; equals: unknown } | undefined,
): boolean => {
  const value = s === undefined ? undefined : valueAt(body, s.field);
  return s !== undefined && value !== undefined && value !== null && String(value) === String(s.equals);
};

export function genericAdapter(mapping: GenericMapping): UssdAdapter {
  const fieldNames = [
    mapping.sessionId,
    mapping.msisdn,
    mapping.text,
    ...(mapping.serviceCode ? [mapping.serviceCode] : []),
    ...(mapping.newSession ? [mapping.newSession.field] : []),
    ...(mapping.end ? [mapping.end.field] : []),
    ...mapping.reply.echo,
  ];
  return {
    name: NAME,

    parseHop(req) {
      const whole = bodyOf(req);
      if (isError(whole)) return whole;
      // The mapped fields by their mapping names, so a 400 names the field as the mapping does.
      const body: Record<string, unknown> = {};
      for (const name of fieldNames) body[name] = valueAt(whole, name);
      const caller = callerOf(body, mapping.sessionId, mapping.msisdn);
      if (isError(caller)) return caller;
      if (matches(body, mapping.end)) return { aggregator: NAME, ...caller, status: 'incomplete' };
      const input = text(body, mapping.text, { allowEmpty: true });
      if (isError(input)) return input;
      const isNew = mapping.newSession
        ? matches(body, mapping.newSession)
        : mapping.input === 'cumulative' && input === '';
      return {
        aggregator: NAME,
        ...caller,
        serviceCode: mapping.serviceCode ? (optionalText(body, mapping.serviceCode) ?? '') : '',
        text: { kind: mapping.input, value: input },
        isNew,
        raw: body,
      };
    },

    formatReply(reply, hop) {
      const out: Record<string, unknown> = {};
      const request = (hop?.raw ?? {}) as Record<string, unknown>;
      for (const name of mapping.reply.echo) if (request[name] !== undefined) setAt(out, name, request[name]);
      setAt(out, mapping.reply.text, reply.text);
      setAt(out, mapping.reply.end, reply.end ? mapping.reply.endValue : mapping.reply.continueValue);
      return json(out);
    },
  };
}
