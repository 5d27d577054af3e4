import { componentLogger } from '../observability/logger';
import type { CallContext, IdentifierRule, PurchaseService, VasProduct } from './port';

/**
 * The organisation's product catalogue (2.7), cached: a hop must not wait for the catalogue
 * every time, and a catalogue outage must not stop sales. Fresh for `ttlMs`; after that the
 * cached copy is still served while one background refresh runs; a failed refresh keeps the
 * stale copy (stale-on-error). Only the very first load is awaited, shared by concurrent callers.
 */

const log = componentLogger('vas');

export interface CatalogueOptions {
  /** How long a loaded catalogue counts as fresh. Default 5 minutes. */
  ttlMs?: number;
  now?: () => number;
  /** Request id used for loads made in the background. */
  requestId?: string;
}

export class Catalogue {
  private cached: { products: VasProduct[]; loadedAt: number } | null = null;
  private loading: Promise<VasProduct[]> | null = null;
  private readonly reported = new Set<string>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly service: Pick<PurchaseService, 'listProducts'>,
    private readonly options: CatalogueOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 5 * 60 * 1000;
    this.now = options.now ?? Date.now;
  }

  /** All products; waits only when nothing was ever loaded. */
  async products(ctx?: CallContext): Promise<VasProduct[]> {
    if (!this.cached) return this.load(ctx);
    if (this.now() - this.cached.loadedAt >= this.ttlMs) {
      this.load(ctx).catch(() => undefined); // logged in load; the stale copy answers meanwhile
    }
    return this.cached.products;
  }

  private load(ctx?: CallContext): Promise<VasProduct[]> {
    if (!this.loading) {
      const context = ctx ?? { requestId: this.options.requestId ?? `catalogue-${this.now()}` };
      this.loading = this.service
        .listProducts(context)
        .then((products) => {
          this.reportBrokenPatterns(products);
          this.cached = { products, loadedAt: this.now() };
          return products;
        })
        .catch((error: unknown) => {
          if (this.cached) log.warn('catalogue refresh failed; serving the stale copy', { error });
          throw error;
        })
        .finally(() => {
          this.loading = null;
        });
    }
    return this.loading;
  }

  /**
   * Logs each identifier pattern that is not a valid regular expression, once per catalogue:
   * `validateIdentifier` skips such a pattern silently (it runs inside dialogue guards, which
   * must not log), so this is where the admin's mistake gets reported.
   */
  private reportBrokenPatterns(products: VasProduct[]): void {
    for (const product of products) {
      const pattern = product.identifier.pattern;
      if (!pattern || compile(pattern) !== null || this.reported.has(pattern)) continue;
      this.reported.add(pattern);
      log.error('catalogue identifier pattern is not a valid regular expression; ignored', {
        productType: product.productType,
        pattern,
      });
    }
  }
}

/**
 * A hint derived from the rule's limits when the admin left none: the message of locales/*.json
 * that says it (`identifier.hintExact`, `.hintDerived`, `.hintMin`, `.hintMax`) and its limits.
 */
export interface DerivedHint {
  key: 'identifier.hintExact' | 'identifier.hintDerived' | 'identifier.hintMin' | 'identifier.hintMax';
  params: Record<string, number>;
}

/** The one rule deriving a hint from min/max (screens and CLI); null when the rule has no limits. */
export function derivedHint(min: number | null, max: number | null): DerivedHint | null {
  if (min !== null && max !== null) {
    return min === max
      ? { key: 'identifier.hintExact', params: { min } }
      : { key: 'identifier.hintDerived', params: { min, max } };
  }
  if (min !== null) return { key: 'identifier.hintMin', params: { min } };
  if (max !== null) return { key: 'identifier.hintMax', params: { max } };
  return null;
}

/** The CLI's English for a derived hint (operators read limits in characters, not digits). */
const ENGLISH_HINT: Record<DerivedHint['key'], (limits: Record<string, number>) => string> = {
  'identifier.hintExact': ({ min }) => `exactly ${min} characters`,
  'identifier.hintDerived': ({ min, max }) => `${min} to ${max} characters`,
  'identifier.hintMin': ({ min }) => `at least ${min} characters`,
  'identifier.hintMax': ({ max }) => `at most ${max} characters`,
};

/** The hint to show in English (CLI): the admin's when set, else one derived from min/max. */
export function identifierHint(rule: IdentifierRule): string | null {
  if (rule.hint !== null) return rule.hint;
  const derived = derivedHint(rule.minLength, rule.maxLength);
  return derived && ENGLISH_HINT[derived.key](derived.params);
}

export type IdentifierCheck =
  { ok: true } | { ok: false; reason: 'tooShort' | 'tooLong' | 'pattern'; min?: number; max?: number };

const compiled = new Map<string, RegExp | null>();

/** The pattern compiled once, or null when it is not a valid regular expression. Pure: no logging. */
function compile(source: string): RegExp | null {
  if (!compiled.has(source)) {
    let pattern: RegExp | null;
    try {
      pattern = new RegExp(source);
    } catch {
      pattern = null;
    }
    compiled.set(source, pattern);
  }
  return compiled.get(source) ?? null;
}

/**
 * Every non-null constraint of the rule together (2.7): length ≥ min, length ≤ max, pattern.
 * A pattern that is not a valid regular expression is skipped (a broken admin pattern must not
 * stop sales; the service still validates). Pure, so dialogue guards can call it; `Catalogue`
 * reports a broken pattern when it loads the catalogue.
 */
export function validateIdentifier(rule: IdentifierRule, value: string): IdentifierCheck {
  const min = rule.minLength ?? undefined;
  const max = rule.maxLength ?? undefined;
  if (min !== undefined && value.length < min) return { ok: false, reason: 'tooShort', min, max };
  if (max !== undefined && value.length > max) return { ok: false, reason: 'tooLong', min, max };
  if (rule.pattern !== null && rule.pattern !== '') {
    const pattern = compile(rule.pattern);
    if (pattern && !pattern.test(value)) return { ok: false, reason: 'pattern', min, max };
  }
  return { ok: true };
}
