import { z } from 'zod';
import type {
  UssdAdapter,
  UssdHop,
  UssdHttpRequest,
  UssdParseError,
  UssdReply,
  UssdSessionEnd,
} from '../types';
import { bodyOf, isError, json, msisdnOf, optionalText, sessionIdOf, text } from '../wire';

/**
 * A configurable JSON aggregator (`USSD_GENERIC_MAPPING`), for the telco gateways and
 * aggregators without an adapter: where each field lives, whether the input is cumulative or
 * the latest only, how a new session and an end are signalled, and the reply's shape.
 */
const NAME = 'generic';

const scalar = z.union([z.string(), z.number(), z.boolean()]);
const signal = z.object({ field: z.string().min(1), equals: scalar }).strict();

export const GenericMappingSchema = z
  .object({
    sessionId: z.string().min(1),
    msisdn: z.string().min(1),
    serviceCode: z.string().min(1).optional(),
    text: z.string().min(1),
    input: z.enum(['cumulative', 'latest']),
    newSession: signal.optional(),
    end: signal.optional(),
    reply: z
      .object({
        text: z.string().min(1),
        end: z.string().min(1),
        endValue: scalar.default(true),
        continueValue: scalar.default(false),
      })
      .strict(),
  })
  .strict();

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

const matches = (body: Record<string, unknown>, s: { field: string; equals: unknown } | undefined): boolean =>
  s !== undefined && body[s.field] !== undefined && String(body[s.field]) === String(s.equals);

export function genericAdapter(mapping: GenericMapping): UssdAdapter {
  return {
    name: NAME,

    parseHop(req: UssdHttpRequest): UssdHop | UssdSessionEnd | UssdParseError {
      const body = bodyOf(req);
      if (isError(body)) return body;
      const sessionId = sessionIdOf(body, mapping.sessionId);
      if (isError(sessionId)) return sessionId;
      const msisdn = msisdnOf(body, mapping.msisdn);
      if (isError(msisdn)) return msisdn;
      if (matches(body, mapping.end)) return { aggregator: NAME, sessionId, msisdn, status: 'incomplete' };
      const input = text(body, mapping.text, { allowEmpty: true });
      if (isError(input)) return input;
      const isNew = mapping.newSession
        ? matches(body, mapping.newSession)
        : mapping.input === 'cumulative' && input === '';
      return {
        aggregator: NAME,
        sessionId,
        msisdn,
        serviceCode: mapping.serviceCode ? (optionalText(body, mapping.serviceCode) ?? '') : '',
        text: { kind: mapping.input, value: input },
        isNew,
        raw: body,
      };
    },

    formatReply(reply: UssdReply) {
      return json({
        [mapping.reply.text]: reply.text,
        [mapping.reply.end]: reply.end ? mapping.reply.endValue : mapping.reply.continueValue,
      });
    },
  };
}
