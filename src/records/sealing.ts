import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { secretFilePath, secretFor } from './secret-file';
import { IN_MEMORY } from './settings';

/**
 * Tokens at rest: what the records keep of a token (the purchase's `result.rawToken`, every
 * outgoing SMS body) is sealed with AES-256-GCM under a key kept outside the database, so a dump
 * of the database hands out no token. A sealed value is `sealed:v1:<key id>:<base64 of iv, tag,
 * ciphertext>`: the key id names the key it was sealed under, so a key can be rotated — the
 * previous key still opens the rows sealed under it until the workers' sweep has sealed them
 * again under the current one (`resealTokens`). A value without the prefix is a row kept before
 * sealing existed: it reads as it is, and the same sweep seals it.
 */

/** Fewest characters `TOKEN_ENCRYPTION_KEY` may have. */
export const MIN_TOKEN_KEY_LENGTH = 32;

/** `NODE_ENV=test`'s key when none is set: every process of a test agrees. Never for real tokens. */
export const TEST_TOKEN_KEY = 'test-token-encryption-key-not-for-real-tokens';

const PREFIX = 'sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value names a key this process was not given: the operator dropped it too early. */
export class UnknownTokenKeyError extends Error {
  constructor(keyId: string) {
    super(
      `a token is sealed under key ${keyId}, which is neither TOKEN_ENCRYPTION_KEY nor one of ` +
        'TOKEN_ENCRYPTION_KEY_PREVIOUS: give the previous key back until the workers have sealed every token again',
    );
    this.name = 'UnknownTokenKeyError';
  }
}

/** The records were opened without a key (`TOKEN_ENCRYPTION_KEY`) and were asked to seal or open a token. */
export class NoTokenKeyError extends Error {
  constructor() {
    super(
      'TOKEN_ENCRYPTION_KEY is needed to read or write tokens in these records (PostgreSQL, DATABASE_URL)',
    );
    this.name = 'NoTokenKeyError';
  }
}

interface Key {
  id: string;
  aes: Buffer;
}

/** A key as configured (32+ characters of any kind) made into an AES-256 key and its id. */
function keyOf(secret: string | Buffer): Key {
  const aes = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'ussd-gateway tokens at rest v1', 32));
  // The id says which key, and nothing of it: 8 hex digits of an HMAC under the key itself.
  const id = createHmac('sha256', aes).update('key id').digest('hex').slice(0, 8);
  return { id, aes };
}

/** Seals and opens tokens at rest; one per process, given to the records when they are opened. */
export interface Sealer {
  /** The id of the key new values are sealed under. */
  readonly keyId: string;
  /** `clear` sealed under the current key. */
  seal(clear: string): string;
  /** The clear text of `stored`: sealed under a key given, or a row from before sealing (as it is). */
  open(stored: string): string;
  /** Whether `stored` is sealed under the current key already. */
  isCurrent(stored: string): boolean;
}

/** Whether a stored value is sealed (under any key). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

/** The SQL `LIKE` pattern of values sealed under the key `keyId`. */
export function sealedUnderPattern(keyId: string): string {
  return `${PREFIX}${keyId}:%`;
}

class KeyedSealer implements Sealer {
  private readonly current: Key;
  private readonly byId: Map<string, Key>;

  constructor(current: string | Buffer, previous: readonly (string | Buffer)[]) {
    this.current = keyOf(current);
    this.byId = new Map([this.current, ...previous.map(keyOf)].map((key) => [key.id, key]));
    // Ids are the current key's when two given keys are one.
    this.byId.set(this.current.id, this.current);
  }

  get keyId(): string {
    return this.current.id;
  }

  seal(clear: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.aes, iv);
    const body = Buffer.concat([cipher.update(clear, 'utf8'), cipher.final()]);
    return `${PREFIX}${this.current.id}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  open(stored: string): string {
    if (!isSealed(stored)) return stored;
    const rest = stored.slice(PREFIX.length);
    const colon = rest.indexOf(':');
    const key = this.byId.get(rest.slice(0, colon));
    if (colon < 0 || !key) throw new UnknownTokenKeyError(rest.slice(0, Math.max(colon, 0)));
    const raw = Buffer.from(rest.slice(colon + 1), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key.aes, raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  }

  isCurrent(stored: string): boolean {
    return stored.startsWith(`${PREFIX}${this.current.id}:`);
  }
}

/** Refuses every use: records opened with no key (`npm run migrate` needs none). */
class KeylessSealer implements Sealer {
  readonly keyId = 'none';
  seal(): string {
    throw new NoTokenKeyError();
  }
  open(stored: string): string {
    if (isSealed(stored)) throw new NoTokenKeyError();
    return stored;
  }
  isCurrent(): boolean {
    return false;
  }
}

/** A sealer under `current`, opening values sealed under any of `previous` too. */
export function sealerOf(current: string | Buffer, previous: readonly (string | Buffer)[] = []): Sealer {
  return new KeyedSealer(current, previous);
}

/** What a tests' database is opened with when nothing else is said (`NODE_ENV=test`). */
export const TEST_SEALER: Sealer = sealerOf(TEST_TOKEN_KEY);

/**
 * The sealer of records opened with no key at all (tests' direct opens, `npm run migrate`): the
 * test key under `NODE_ENV=test`, else one that refuses to seal or open.
 */
export function keylessSealer(): Sealer {
  return process.env.NODE_ENV === 'test' ? TEST_SEALER : new KeylessSealer();
}

/** Where the key comes from: the records' settings. */
export interface TokenKeySettings {
  /** `TOKEN_ENCRYPTION_KEY`. */
  tokenKey?: string | null;
  /** `TOKEN_ENCRYPTION_KEY_PREVIOUS`: keys that still open what they sealed. */
  previousTokenKeys?: readonly string[];
  url?: string;
  dataDir: string;
}

/** The key file's path under a data directory. */
export function tokenKeyPath(dataDir: string): string {
  return secretFilePath(dataDir, 'token.key');
}

// One per process: in-memory records live and die with it.
let inMemory: Sealer | null = null;

/**
 * The sealer for records as configured: `TOKEN_ENCRYPTION_KEY` (and the previous keys) when set
 * (required with `DATABASE_URL`: a key kept in the database it protects would protect nothing);
 * else, in the embedded mode, a random key made at first start in `<DATA_DIR>/secrets/token.key`
 * (mode 0600) beside the records; in memory for `memory://`.
 */
export function sealerFor(settings: TokenKeySettings): Sealer {
  if (settings.tokenKey) return sealerOf(settings.tokenKey, settings.previousTokenKeys ?? []);
  if (settings.url) return keylessSealer();
  if (settings.dataDir === IN_MEMORY) return (inMemory ??= sealerOf(randomBytes(32)));
  return sealerOf(keyFile(settings.dataDir), settings.previousTokenKeys ?? []);
}

function keyFile(dataDir: string): Buffer {
  return secretFor('token.key', null, dataDir);
}
