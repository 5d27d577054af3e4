/**
 * A lookup table for values read off the wire — a provider's status word or code — that only
 * answers with its own entries. An object literal indexed with wire text also answers
 * `__proto__`, `constructor`, `toString`, `hasOwnProperty`, `valueOf`… with `Object.prototype`'s
 * members, which then pass for a known status. Every adapter and driver table uses this one.
 */
export interface WireTable<V> {
  /** The entry for `key` as the wire gave it (a string or a number), or undefined. */
  get(key: unknown): V | undefined;
  /** The known keys, in the order given (for an error that lists them). */
  readonly keys: readonly string[];
}

export function wireTable<V>(entries: Readonly<Record<string | number, V>>): WireTable<V> {
  const map = new Map<string, V>(Object.entries(entries));
  return {
    get: (key) => (typeof key === 'string' || typeof key === 'number' ? map.get(String(key)) : undefined),
    keys: [...map.keys()],
  };
}
