import { createHmac, randomBytes, randomInt, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { ScryptParams, StoredPin } from './types';

/**
 * PINs: 4–6 digits, hashed with scrypt (node's crypto) and a random salt per agent; the
 * parameters are stored with the hash, so raising them later leaves old hashes verifiable.
 * Compared in constant time. The PIN itself is never kept, logged or returned.
 *
 * With only 10^6 PINs a salt alone does not stop someone holding the rows from trying them all,
 * so scrypt is given HMAC-SHA256(secret, PIN): the server secret (`AGENT_PIN_SECRET`, a pepper)
 * kept outside the records. Such hashes say `pepper: true` in their parameters; older ones
 * (without) still verify and are rehashed at the agent's next right PIN (`needsRehash`).
 */

/** N=2^14, r=8: 16 MiB and tens of milliseconds per hash, on libuv's thread pool, not the event loop. */
export const DEFAULT_SCRYPT: ScryptParams = { N: 16384, r: 8, p: 1, keyLen: 32 };

const SALT_BYTES = 16;
const PIN_FORMAT = /^\d{4,6}$/;

/** Why a new PIN is refused (the screen says which). */
export type PinProblem = 'format' | 'weak' | 'same';

/** The server secret PINs are peppered with (never stored with the records, never logged). */
export type PinSecret = Buffer;

function scryptAsync(
  pin: string,
  salt: Buffer,
  params: ScryptParams,
  secret: PinSecret | null,
): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r };
  if (params.pepper && !secret) return Promise.reject(new Error('a peppered PIN hash needs the PIN secret'));
  const input = params.pepper ? createHmac('sha256', secret!).update(pin).digest() : pin;
  return new Promise((resolve, reject) =>
    scrypt(input, salt, params.keyLen, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** Whether `pin` has the shape of a PIN (4–6 digits). */
export function isPinShaped(pin: string): boolean {
  return PIN_FORMAT.test(pin);
}

/** One digit repeated (`0000`) or a run up or down (`1234`, `987654`): the first PINs guessed. */
export function isWeakPin(pin: string): boolean {
  const digits = [...pin].map(Number);
  const steps = new Set(digits.slice(1).map((d, i) => (d - digits[i] + 10) % 10));
  return steps.size === 1 && [0, 1, 9].includes([...steps][0]);
}

/** Why `pin` cannot become an agent's new PIN, or null when it can. */
export function newPinProblem(pin: string, old?: string): PinProblem | null {
  if (!isPinShaped(pin)) return 'format';
  if (isWeakPin(pin)) return 'weak';
  if (old !== undefined && pin === old) return 'same';
  return null;
}

/** A random six-digit one-time PIN (never a weak one), for the operator to hand over once. */
export function oneTimePin(): string {
  for (;;) {
    const pin = String(randomInt(0, 1_000_000)).padStart(6, '0');
    if (!isWeakPin(pin)) return pin;
  }
}

/**
 * Hash `pin` with a fresh salt, peppered with `secret`; `version` is the caller's (the store
 * bumps it on write).
 */
export async function hashPin(
  pin: string,
  secret: PinSecret,
  params: ScryptParams = DEFAULT_SCRYPT,
): Promise<Omit<StoredPin, 'version'>> {
  const salt = randomBytes(SALT_BYTES);
  const peppered: ScryptParams = {
    N: params.N,
    r: params.r,
    p: params.p,
    keyLen: params.keyLen,
    pepper: true,
  };
  const hash = await scryptAsync(pin, salt, peppered, secret);
  return { hash: hash.toString('base64'), salt: salt.toString('base64'), params: peppered };
}

/**
 * Whether `pin` matches `stored`, with the stored parameters. The comparison takes the same
 * time wherever the first differing byte is (timingSafeEqual); input that is not PIN-shaped is
 * hashed all the same, so its answer does not come back faster either.
 */
export async function pinMatches(
  pin: string,
  stored: Pick<StoredPin, 'hash' | 'salt' | 'params'>,
  secret: PinSecret,
): Promise<boolean> {
  const expected = Buffer.from(stored.hash, 'base64');
  const actual = await scryptAsync(
    pin.slice(0, 64),
    Buffer.from(stored.salt, 'base64'),
    stored.params,
    secret,
  );
  return actual.length === expected.length && timingSafeEqual(actual, expected) && isPinShaped(pin);
}

/**
 * Whether a hash was made with weaker parameters than `current`, or without the pepper
 * (re-hashed after a right PIN).
 */
export function needsRehash(stored: Pick<StoredPin, 'params'>, current: ScryptParams): boolean {
  const p = stored.params;
  return !p.pepper || p.N < current.N || p.r < current.r || p.p < current.p || p.keyLen < current.keyLen;
}
