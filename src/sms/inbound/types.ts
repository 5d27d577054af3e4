import type { DeliveryReport } from '../../messaging/sender';
import type { IncomingHttpHeaders } from 'node:http';
import type { ReceivedSms } from '../../messaging/sender';
import type { ParseProblem } from '../commands/grammar';

/**
 * One inbound SMS (mobile-originated), whatever provider delivered it, as the intake passes it on:
 * what the link received, with the PIN check's and the grammar's verdicts.
 */
export interface InboundSms extends ReceivedSms {
  /**
   * An agent command's PIN, checked at the intake (the only place it is ever in clear): the text
   * then carries `XXXX` instead, and this the verdict.
   */
  pin?: PinVerdict;
  /**
   * The grammar's verdict on the text as the agent typed it, when the intake masked numbers that
   * could be the PIN in a message the grammar refuses: the answer is the one the text deserved.
   */
  refused?: { problem: ParseProblem; language: string | null };
}

/** A message with its PINs taken out (`sms`, safe to keep), and the check of what was taken. */
export interface ScreenedSms {
  sms: InboundSms;
  /** Checks the PIN it carried (counting towards the lockout) or makes the PIN change: the message to queue. */
  checked(): Promise<InboundSms>;
}

/** What the intake's PIN check found (see src/sms/agents/pin-gate.ts). */
export type PinVerdict =
  | { status: 'ok'; mustChangePin: boolean }
  | { status: 'wrong'; attemptsLeft: number }
  | { status: 'locked'; until: string }
  | { status: 'disabled' }
  | { status: 'not_agent' }
  /** `PIN <old> <new>`: the change was made. */
  | { status: 'changed' }
  /** `PIN <old> <new>`: the new PIN is refused (the old one was right). */
  | { status: 'invalid'; problem: string };

/** A wire request as an adapter sees it (express's Request satisfies it). */
export interface InboundHttpRequest {
  body: unknown;
  headers: IncomingHttpHeaders;
}

/** A parse failure: the router answers 400 with this message and changes nothing. */
export interface InboundParseError {
  error: string;
}

/**
 * One provider's inbound wire format. Adapters only translate: no Redis, no reply, no purchase.
 * The router mounts `POST /sms/<path>` (messages) and `POST /sms/<path>/delivery` (reports).
 */
export interface InboundSmsAdapter {
  readonly name: string;
  readonly path: string;
  parseMessage(req: InboundHttpRequest): InboundSms | InboundParseError;
  parseDelivery?(req: InboundHttpRequest): DeliveryReport | InboundParseError;
}

export function isInboundParseError(value: object): value is InboundParseError {
  return typeof (value as InboundParseError).error === 'string';
}

/** The body as a flat record of strings (form or JSON), or null when it is not an object. */
export function fieldsOf(body: unknown): Record<string, unknown> | null {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : null;
}
