import { z } from 'zod';
import type { UssdAdapter } from '../../types';
import {
  afterDialledCode,
  callerOf,
  conEnd,
  fieldsOf,
  isDialString,
  isError,
  json,
  optionalText,
  POST_OR_GET,
  text,
} from '../../wire';

/**
 * A configurable aggregator (`USSD_GENERIC_MAPPING`), for the telco gateways and aggregators
 * without an adapter: a JSON or form POST or a GET query; where each field lives (`a.b` for
 * nested ones), whether the input is cumulative or the latest only, what to strip from it (the
 * dialled code, a trailing `#`), how a new session and an end are signalled, and the reply (JSON
 * with its text and end fields and request fields echoed back, or `CON`/`END` text).
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
    /**
     * What the text carries besides the inputs: `code` the dialled code in front (`true`: the
     * `serviceCode` field's value, or the code itself, `*384#`), `hash` a trailing `#` (Advanta's
     * `INPUT=*384*1#`).
     */
    strip: z
      .object({
        code: z.union([z.boolean(), z.string().regex(/^\*?\d+(\*\d+)*#?$/)]).default(false),
        hash: z.boolean().default(false),
      })
      .strict()
      .default({ code: false, hash: false }),
    reply: z
      .object({
        /** `json` (default): an object with `text` and `end`; `conEnd`: text/plain `CON …` / `END …`. */
        format: z.enum(['json', 'conEnd']).default('json'),
        text: field.optional(),
        end: field.optional(),
        endValue: scalar.default(true),
        continueValue: scalar.default(false),
        /** Request fields copied into every reply at the same place (a session id the gateway wants back). */
        echo: z.array(field).max(20).default([]),
      })
      .strict()
      .refine((r) => r.format === 'conEnd' || (r.text !== undefined && r.end !== undefined), {
        message: 'a JSON reply needs its text and end fields',
        path: ['text'],
      })
      .refine((r) => r.format === 'conEnd' || r.text !== r.end, {
        message: 'the text and the end flag need two fields',
        path: ['end'],
      })
      .refine((r) => r.endValue !== r.continueValue, {
        message: 'endValue and continueValue must differ',
        path: ['endValue'],
      }),
  })
  .strict()
  .refine((m) => m.strip.code !== true || m.serviceCode !== undefined, {
    message: 'stripping the dialled code needs the serviceCode field, or the code itself',
    path: ['strip', 'code'],
  })
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
  /**
   * The inputs out of the text: the dialled code and a trailing `#` taken off as the mapping says.
   * The code only from a dial string or a hop the gateway flags new: a typed `384` stays an input.
   */
  function typedOf(
    input: string,
    serviceCode: string,
    flaggedNew: boolean,
  ): { typed: string; afterCode: boolean } {
    const { code, hash } = mapping.strip;
    const after =
      code === false || !(flaggedNew || isDialString(input))
        ? undefined
        : afterDialledCode(input, code === true ? serviceCode : code);
    const typed = after ?? input;
    return { typed: hash ? typed.replace(/#$/, '') : typed, afterCode: after !== undefined };
  }

  return {
    name: NAME,
    // A JSON or form POST, or a GET query.
    routes: POST_OR_GET,

    parseHop(req) {
      const whole = fieldsOf(req);
      // The mapped fields by their mapping names, so a 400 names the field as the mapping does.
      const body: Record<string, unknown> = {};
      for (const name of fieldNames) body[name] = valueAt(whole, name);
      const caller = callerOf(body, mapping.sessionId, mapping.msisdn);
      if (isError(caller)) return caller;
      if (matches(body, mapping.end)) return { aggregator: NAME, ...caller, status: 'incomplete' };
      const input = text(body, mapping.text, { allowEmpty: true });
      if (isError(input)) return input;
      const serviceCode = mapping.serviceCode ? (optionalText(body, mapping.serviceCode) ?? '') : '';
      const flaggedNew = matches(body, mapping.newSession);
      const { typed, afterCode } = typedOf(input, serviceCode, flaggedNew);
      const cumulative = mapping.input === 'cumulative';
      const isNew = mapping.newSession ? flaggedNew : cumulative && typed === '';
      // What was dialled after the code (a shortcut): a cumulative first text, or a new
      // session's dial string; the engine reads it only on a session's first hop.
      const dialled = typed !== '' && (cumulative || (isNew && afterCode)) ? typed : undefined;
      return {
        aggregator: NAME,
        ...caller,
        serviceCode,
        text: { kind: mapping.input, value: typed },
        isNew,
        ...(dialled !== undefined && { dialled }),
        raw: body,
      };
    },

    formatReply(reply, hop) {
      if (mapping.reply.format === 'conEnd') return conEnd(reply);
      const out: Record<string, unknown> = {};
      const request = (hop?.raw ?? {}) as Record<string, unknown>;
      for (const name of mapping.reply.echo) if (request[name] !== undefined) setAt(out, name, request[name]);
      setAt(out, mapping.reply.text!, reply.text);
      setAt(out, mapping.reply.end!, reply.end ? mapping.reply.endValue : mapping.reply.continueValue);
      return json(out);
    },
  };
}
