import type { RequestHandler } from 'express';
import { credentialLabel, type AdminCredential } from '../../http/secrets';
import { componentLogger, maskNumbersInText, redact } from '../../observability/logger';

/**
 * Admin answers show numbers and tokens masked, as the logs do, unless the operator asks for
 * them (`?reveal=true`); a reveal is written to the audit trail before anything is shown, and
 * is refused when it cannot be.
 */

const log = componentLogger('care');

/**
 * `body` with every phone number and token masked by the logger's one set of rules (by key:
 * `msisdn`, `to`, `beneficiary…`, `rawToken`; in free text: numbers and 20-digit tokens). Unlike
 * the logger it walks to any depth: an answer is never half masked.
 */
export function maskForDisplay(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return redact(key, value);
  if (Array.isArray(value)) return value.map((item) => maskForDisplay(item, key));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = maskForDisplay(v, k);
    return out;
  }
  return value;
}

export interface AdminResponsesOptions {
  credentials: readonly AdminCredential[];
  /** Writes the reveal to the audit trail; a rejection refuses the reveal. */
  recordReveal(actor: string, detail: string): Promise<void>;
}

/**
 * Mounted in front of every `/admin` router: masks what they answer, or audits a reveal. A
 * request without a valid token passes untouched (its router's guard answers 401).
 */
export function adminResponses(options: AdminResponsesOptions): RequestHandler {
  return (req, res, next) => {
    const operator = credentialLabel(req.get('authorization'), options.credentials);
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
    options.recordReveal(operator, detail).then(
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
