import { createHmac, randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Operators' passwords: scrypt (memory-hard, node's crypto, on libuv's thread pool) over
 * HMAC-SHA256(pepper, password) with a random salt each; the pepper (`OPERATOR_PASSWORD_PEPPER`,
 * ./pepper.ts) lives outside the database, so a copy of the `operators` table cannot be tried
 * offline. The parameters are stored with the hash, so raising them leaves old hashes
 * verifiable. The password itself is never kept, logged or returned.
 */

export interface PasswordHash {
  hash: string;
  salt: string;
  N: number;
  r: number;
  p: number;
  keyLen: number;
}

/** N=2^15, r=8: 32 MiB and tens of milliseconds per hash (a login is rare; a guess is costly). */
export const PASSWORD_SCRYPT = { N: 32768, r: 8, p: 1, keyLen: 32 } as const;

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 200;

/** Why a new password is refused, or null: long enough, not the name, not the one-time one. */
export function newPasswordProblem(password: unknown, name: string, old?: string): string | null {
  if (typeof password !== 'string') return 'the new password is missing';
  if (password.length < MIN_PASSWORD_LENGTH)
    return `the new password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH)
    return `the new password must be at most ${MAX_PASSWORD_LENGTH} characters`;
  if (password.toLowerCase().includes(name.toLowerCase()))
    return 'the new password must not contain your name';
  if (old !== undefined && password === old) return 'the new password must differ from the old one';
  if (new Set(password).size < 5) return 'the new password needs more different characters';
  return null;
}

function derive(password: string, salt: Buffer, params: Omit<PasswordHash, 'hash' | 'salt'>, pepper: Buffer) {
  const input = createHmac('sha256', pepper).update(password.slice(0, MAX_PASSWORD_LENGTH)).digest();
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(
      input,
      salt,
      params.keyLen,
      { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

export async function hashPassword(password: string, pepper: Buffer): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PASSWORD_SCRYPT, pepper);
  return { hash: key.toString('base64'), salt: salt.toString('base64'), ...PASSWORD_SCRYPT };
}

/** Constant-time comparison; a wrong password costs the same scrypt as a right one. */
export async function passwordMatches(
  password: string,
  stored: PasswordHash,
  pepper: Buffer,
): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'base64');
  const actual = await derive(password, Buffer.from(stored.salt, 'base64'), stored, pepper);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash to compare against when there is no account, so an unknown name answers as slowly as a known one. */
let decoy: Promise<PasswordHash> | undefined;
export function decoyHash(pepper: Buffer): Promise<PasswordHash> {
  return (decoy ??= hashPassword(randomBytes(16).toString('hex'), pepper));
}

/** Letters and digits a person can read aloud and type: no 0/O, 1/l/I. */
const ALPHABET = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A one-time password of 16 characters (~92 bits), in groups of four: `k7Qm-…`. */
export function oneTimePassword(): string {
  const chars = Array.from({ length: 16 }, () => ALPHABET[randomInt(ALPHABET.length)]);
  return [0, 4, 8, 12].map((i) => chars.slice(i, i + 4).join('')).join('-');
}
