import type { Mutation } from './generators';

/**
 * Requests as the fuzz suite sends them, and the spoiling of a well-formed one (an aggregator
 * dialer's or an SMS provider's) by a {@link Mutation}: fields dropped or replaced, another
 * encoding, a raw body, another method, a body past the parser's limit.
 */

/** A well-formed request before spoiling: fields in the body (form or JSON) or in the query. */
export interface CleanRequest {
  method: string;
  /** Path with its query string, if any. */
  path: string;
  body?: Record<string, unknown>;
  form?: boolean;
}

/** What goes on the wire. */
export interface SentRequest {
  method: string;
  path: string;
  contentType: string | null;
  body: string | null;
}

/** One form value: arrays repeat the key, objects become `key[sub]`, the rest their text. */
function formPairs(fields: Record<string, unknown>): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) v.forEach((x) => pairs.push([k, String(x)]));
    else if (v !== null && typeof v === 'object')
      Object.entries(v).forEach(([s, x]) => pairs.push([`${k}[${s}]`, String(x)]));
    else pairs.push([k, String(v)]);
  }
  return pairs;
}

const form = (fields: Record<string, unknown>) => new URLSearchParams(formPairs(fields)).toString();

function encode(fields: Record<string, unknown>, asForm: boolean): Pick<SentRequest, 'body' | 'contentType'> {
  return asForm
    ? { body: form(fields), contentType: 'application/x-www-form-urlencoded' }
    : { body: JSON.stringify(fields), contentType: 'application/json' };
}

/** Replace a field's value, drop it or add one (Object.defineProperty: `__proto__` is a plain key here). */
function edit(fields: Record<string, unknown>, m: Mutation): Record<string, unknown> {
  const out: Record<string, unknown> = { ...fields };
  const keys = Object.keys(out);
  if (m.kind === 'drop' && keys.length > 0) delete out[keys[m.index % keys.length]];
  if (m.kind === 'set' && keys.length > 0) out[keys[m.index % keys.length]] = m.value;
  if (m.kind === 'add')
    Object.defineProperty(out, m.name, {
      value: m.value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

export function spoil(clean: CleanRequest, m: Mutation): SentRequest {
  const sent = spoilt(clean, m);
  // A GET carries no body (clients refuse to send one): its fields are in the query.
  return sent.method === 'GET' ? { ...sent, body: null, contentType: null } : sent;
}

function spoilt(clean: CleanRequest, m: Mutation): SentRequest {
  const [pathOnly, query] = clean.path.split(/\?(.*)/s);
  const fields = clean.body ?? {};
  const asForm = clean.form === true;
  const well: SentRequest = { method: clean.method, path: clean.path, ...encode(fields, asForm) };
  if (clean.body === undefined) {
    well.body = null;
    well.contentType = null;
  }
  switch (m.kind) {
    case 'asIs':
      return well;
    case 'drop':
    case 'set':
    case 'add': {
      // Fields live in the body, or (GET formats) in the query string.
      if (clean.body !== undefined) return { ...well, ...encode(edit(fields, m), asForm) };
      const params = Object.fromEntries(new URLSearchParams(query ?? ''));
      return { ...well, path: `${pathOnly}?${form(edit(params, m))}` };
    }
    case 'encoding': {
      const json = JSON.stringify(fields);
      const asText = form(fields);
      switch (m.as) {
        case 'form':
          return { ...well, body: asText, contentType: 'application/x-www-form-urlencoded' };
        case 'json':
          return { ...well, body: json, contentType: 'application/json' };
        case 'text':
          return { ...well, body: json, contentType: 'text/plain' };
        case 'xml':
          return { ...well, body: `<ussd>${asText}</ussd>`, contentType: 'application/xml' };
        case 'none':
          return { ...well, body: asForm ? asText : json, contentType: null };
        case 'utf16':
          return { ...well, body: json, contentType: 'application/json; charset=utf-16' };
        case 'koi8':
          return { ...well, body: asText, contentType: 'application/x-www-form-urlencoded; charset=koi8-r' };
        case 'multipart':
          return {
            ...well,
            body: `--x\r\n\r\n${asText}\r\n--x--`,
            contentType: 'multipart/form-data; boundary=x',
          };
      }
      break;
    }
    case 'raw':
      return { ...well, body: m.body, contentType: m.contentType };
    case 'method':
      return { ...well, method: m.method };
    case 'huge':
      return {
        ...well,
        ...encode({ ...fields, padding: 'x'.repeat(20_000) }, asForm),
      };
  }
  return well;
}

/** Percent-encoding of the UTF-8 bytes (a lone surrogate becomes U+FFFD, as a client sends it). */
function percentEncode(raw: string): string {
  return Array.from(new TextEncoder().encode(raw), (b) =>
    /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b))
      ? String.fromCharCode(b)
      : `%${b.toString(16).padStart(2, '0')}`,
  ).join('');
}

/** Infobip-style path parameters carry the session id: encode it as a client would. */
export function encodePathSegment(path: string, raw: string): string {
  if (raw === '' || !path.includes(`/${raw}/`)) return path;
  return path.split(`/${raw}/`).join(`/${percentEncode(raw)}/`);
}
