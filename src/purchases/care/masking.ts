import { createHmac, randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';
import { credentialLabel, type AdminCredential } from '../../http/secrets';
import {
  componentLogger,
  isNumberToMask,
  maskMsisdn,
  maskNumbersInText,
  maskToken,
  MSISDN_KEYS,
  SECRET_KEYS,
  TOKEN_KEYS,
} from '../../observability/logger';

/**
 * Admin answers and the operator CLI (src/cli/kit.ts) show numbers and tokens masked unless the
 * operator asks for them (`?reveal=true`, `--reveal`); a reveal is written to the audit trail
 * before anything is shown, and is refused when it cannot be.
 */

const log = componentLogger('care');

/** Subscriber identifiers (a meter, or for airtime the phone number itself) are shown as numbers are. */
const DISPLAY_NUMBER_KEYS = /^(subscriber)?identifier$/i;
/**
 * Free text, and ids composed of other values (a notification id, and the outbox's message id
 * made of it, end with the recipient; an idempotency key may hold an aggregator's session id):
 * a number or a token can hide inside them, so they get the logger's masking of numbers in text. Every other field (dates,
 * references, provider ids, amounts, states) is shown whole.
 */
const TEXT_KEYS =
  /^(message|text|body|note|detail|description|reason|failureReason|error|lastError|subscriberDetails|name|value|id|idempotencyKey|notifications|purchaseKey|requestKey|providerMessageId|sessionId)$/i;

/**
 * The tag of a masked number: 4 hex digits of an HMAC of its digits under a key that lives only
 * in this process's memory, so `267****0001#1c9e` and `267****0001#a04b` are two numbers, and
 * the tag cannot be reversed by trying every number (the key is nowhere to be found). It is
 * stable within one process (an admin session, one CLI command), not across them.
 */
const TAG_KEY = randomBytes(32);

/** A number as shown masked: the logger's masking plus the tag that tells it from another. */
export function displayNumber(value: string): string {
  const digits = value.replace(/[^0-9A-Za-z]/g, '');
  const tag = createHmac('sha256', TAG_KEY).update(digits).digest('hex').slice(0, 4);
  return `${maskMsisdn(value)}#${tag}`;
}

/**
 * `body` with every phone number and token masked, by field: numbers under a phone-number or
 * identifier key (`msisdn`, `to`, `beneficiary…`, `subscriberIdentifier`), tokens under a token
 * key (`rawToken`), secrets redacted, numbers inside free text and composed ids; everything
 * else (dates, references, amounts) whole. Walks to any depth: an answer is never half masked.
 */
export function maskForDisplay(value: unknown, key = ''): unknown {
  if (value === null || value === undefined) return value;
  if (key !== '' && SECRET_KEYS.test(key)) return '[redacted]';
  if (typeof value === 'string') {
    if (TOKEN_KEYS.test(key)) return value.split('|').map(maskToken).join('|');
    if (MSISDN_KEYS.test(key) || DISPLAY_NUMBER_KEYS.test(key))
      return isNumberToMask(value) ? displayNumber(value) : maskNumbersInText(value);
    return TEXT_KEYS.test(key) ? maskNumbersInText(value) : value;
  }
  if (Array.isArray(value)) return value.map((item) => maskForDisplay(item, key));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = maskForDisplay(v, k);
    return out;
  }
  return value;
}

export interface AdminResponsesOptions {
  credentials: readonly AdminCredential[];
  /** Writes the reveal to the audit trail (under the purchase it shows, if one); a rejection refuses the reveal. */
  recordReveal(actor: string, detail: string, purchaseId?: string): Promise<void>;
}

/** The purchase a path under `/admin` shows (`/purchases/<id>`, `/purchases/<id>/audit`), so its own trail has the reveal. */
function purchaseShown(path: string): string | undefined {
  const id = /^\/purchases\/([^/]+)/.exec(path)?.[1];
  if (id === undefined || id === 'audit') return undefined;
  try {
    return decodeURIComponent(id);
  } catch {
    return undefined;
  }
}

/**
 * Mounted in front of every `/admin` router: masks what they answer, or audits a reveal. A
 * request without a valid token passes untouched (its router's guard answers 401).
 */
export function adminResponses(options: AdminResponsesOptions): RequestHandler {
  return (req, res, next) => {
    // Named by the gate of `/admin` (src/operators/admin-auth.ts), else by a shared token.
    const caller = res.locals.caller as { name?: string } | undefined;
    const operator = caller?.name ?? credentialLabel(req.get('authorization'), options.credentials);
    if (operator === undefined) {
      next();
      return;
    }
    if (req.query.reveal !== 'true') {
      const json = res.json.bind(res);
      res.json = (body: unknown) => json(maskForDisplay(body));
      next();
      return;
    }
    const detail = `${req.method} ${maskNumbersInText(req.originalUrl)}`;
    options.recordReveal(operator, detail, purchaseShown(req.path)).then(
      () => {
        log.warn('admin revealed numbers and tokens', { actor: operator, detail });
        next();
      },
      (error: unknown) => {
        log.error('reveal refused: the audit trail could not be written', { actor: operator, error });
        res.status(503).json({
          error: 'audit_unavailable',
          message: 'the reveal could not be written to the audit trail, so nothing is revealed; try again',
        });
      },
    );
  };
}
