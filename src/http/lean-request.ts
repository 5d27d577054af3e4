import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';

/**
 * What the hot callback routes need of HTTP, on `node:http` directly: read a capped body, parse
 * it by content type the way express's parsers would (same results for the same request), and
 * answer with one write. Express's router, request/response wrappers and middleware chain cost
 * more CPU per hop than the rest of a USSD hop's HTTP work together.
 */

/** Largest callback body accepted (an aggregator's hop is a few hundred bytes). */
export const CALLBACK_BODY_LIMIT = 16 * 1024;

const MAX_FORM_FIELDS = 1000;

/** A body that cannot be read or parsed: answered with `status` and a short text, never a stack. */
export class BodyError extends Error {
  constructor(
    readonly status: number,
    message = 'malformed request body',
  ) {
    super(message);
  }
}

/** The media type and charset of a `Content-Type` header (`application/json; charset=utf-8`). */
function contentTypeOf(header: string | undefined): { type: string; charset: string | undefined } {
  if (!header) return { type: '', charset: undefined };
  const [type, ...params] = header.split(';');
  let charset: string | undefined;
  for (const param of params) {
    const [name, value] = param.split('=');
    if (name?.trim().toLowerCase() === 'charset') charset = value?.trim().replace(/^"|"$/g, '').toLowerCase();
  }
  return { type: type.trim().toLowerCase(), charset };
}

type BodyKind = 'form' | 'json';

function bodyKind(type: string): BodyKind | undefined {
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type === 'application/json') return 'json';
  return undefined;
}

/** Reads the whole body as UTF-8, refusing more than `limit` bytes (413) without buffering it. */
export function readText(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(new BodyError(413, 'request body too large'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        reject(new BodyError(413, 'request body too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', () => reject(new BodyError(400)));
  });
}

/**
 * The request's body as express's `urlencoded({ extended: false })` and `json()` parsers give it:
 * a form → an object of strings (string arrays for repeated names), JSON → the object or array;
 * `undefined` for a request without a body or of another content type (the adapter then names
 * what is missing). A charset other than UTF-8 is refused (415), bad JSON too (400).
 */
export async function readBody(req: IncomingMessage, limit = CALLBACK_BODY_LIMIT): Promise<unknown> {
  const hasBody =
    req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
  if (!hasBody) return undefined;
  const { type, charset } = contentTypeOf(req.headers['content-type']);
  const kind = bodyKind(type);
  if (!kind) {
    req.resume();
    return undefined;
  }
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
    throw new BodyError(415, 'unsupported charset');
  const text = await readText(req, limit);
  if (kind === 'form') {
    if (text === '') return {};
    // express's form parser refuses more than 1000 fields the same way.
    if (text.split('&', MAX_FORM_FIELDS + 1).length > MAX_FORM_FIELDS)
      throw new BodyError(413, 'too many parameters');
    return { ...parseQueryString(text, '&', '=', { maxKeys: MAX_FORM_FIELDS }) };
  }
  if (text.trim() === '') return {};
  // Like express.json's strict mode: only an object or an array is a JSON body.
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') throw new BodyError(400);
  try {
    return JSON.parse(text);
  } catch {
    throw new BodyError(400);
  }
}

/** The query string of a request URL as express's default ("simple") query parser gives it. */
export function queryOf(url: string): Record<string, string | string[] | undefined> {
  const at = url.indexOf('?');
  return at === -1 ? {} : { ...parseQueryString(url.slice(at + 1)) };
}

/** One answer, one write: status, content type (UTF-8 text), Content-Length, extra headers. */
export function sendText(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers?: Record<string, string>,
): void {
  const type = contentType.includes('charset=') ? contentType : `${contentType}; charset=utf-8`;
  res.writeHead(status, {
    ...headers,
    'content-type': type,
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
