import { createHmac, hash, scryptSync } from 'node:crypto';
import type { Queryable } from '../../src/records/database';

/**
 * What the PIN tests scan: every row of every table of the records' schema, and a dictionary
 * attack on what they hold.
 */

/** Every row of every table in the connection's schema, as `<table> <row as JSON>` lines. */
export async function dumpSchema(db: Queryable): Promise<{ tables: string[]; text: string }> {
  const tables = (
    await db.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
    )
  ).rows.map((row) => row.name);
  const lines: string[] = [];
  for (const table of tables) {
    // Names from the catalogue, quoted: every column of every row, whatever its type.
    const rows = await db.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM "${table}" t`);
    for (const { row } of rows.rows) lines.push(`${table} ${row}`);
  }
  return { tables, text: lines.join('\n') };
}

/** How a PIN is digested by someone who keeps no secret and no salt: the attacker's recipes. */
const ALGORITHMS = ['sha256', 'sha1', 'md5'] as const;
/** The lengths of a hex prefix that counts as the digest. */
const PREFIXES = [12, 16, 20, 24, 32, 40, 64];

/**
 * Every 4–6 digit PIN whose unsalted digest (sha256, sha1 or md5 of the PIN; hex, or a hex
 * prefix of 12+ characters, or base64) appears in `text`. Empty when no digest a dictionary
 * reverses is kept.
 */
export function pinsReversedFrom(text: string): string[] {
  const hexes = new Set((text.match(/[0-9a-f]{12,}/gi) ?? []).map((h) => h.toLowerCase()));
  const base64s = new Set(text.match(/[A-Za-z0-9+/]{16,}={0,2}/g) ?? []);
  const reversed = (hex: string) =>
    base64s.has(Buffer.from(hex, 'hex').toString('base64')) ||
    PREFIXES.some((p) => hexes.has(hex.slice(0, p)));
  // A digest found either way starts with the same 6 bytes as the stored string: each of the 3.3
  // million one-shot hex digests is looked up by its first 12 hex digits, and only a hit is
  // checked in full (createHash, a Buffer and two encodings per digest took 6 times as long).
  const leads = new Set([...hexes].map((h) => h.slice(0, 12)));
  for (const b of base64s) leads.add(Buffer.from(b, 'base64').toString('hex').slice(0, 12));
  const found: string[] = [];
  for (let length = 4; length <= 6; length += 1)
    for (let n = 0; n < 10 ** length; n += 1) {
      const pin = String(n).padStart(length, '0');
      for (const algorithm of ALGORITHMS) {
        const hex = hash(algorithm, pin, 'hex');
        if (leads.has(hex.slice(0, 12)) && reversed(hex)) found.push(`${pin} (${algorithm})`);
      }
    }
  return found;
}

/** What an agents row keeps of its PIN. */
export interface PinRow {
  pin_hash: string;
  pin_salt: string;
  pin_params: { N: number; r: number; p: number; keyLen: number; pepper?: boolean };
}

/**
 * Whether `hash` is scrypt of `pin` with the row's own salt and parameters: what someone
 * holding the row (and not the server secret) tries for each of the 10^6 PINs.
 */
export function isSaltedScryptOf(pin: string, row: PinRow): boolean {
  return scryptOf(pin, row) === row.pin_hash;
}

/** Whether `hash` is scrypt of HMAC-SHA256(secret, pin) with the row's salt: the server's recipe. */
export function isPepperedScryptOf(pin: string, secret: string | Buffer, row: PinRow): boolean {
  return scryptOf(createHmac('sha256', secret).update(pin).digest(), row) === row.pin_hash;
}

function scryptOf(input: string | Buffer, row: PinRow): string {
  const { N, r, p, keyLen } = row.pin_params;
  return scryptSync(input, Buffer.from(row.pin_salt, 'base64'), keyLen, {
    N,
    r,
    p,
    maxmem: 256 * N * r,
  }).toString('base64');
}
