import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isSealed, sealerFor, sealerOf, tokenKeyPath, UnknownTokenKeyError } from './sealing';

const KEY = 'a-token-key-of-thirty-two-characters-at-least';
const OLD = 'the-previous-token-key-thirty-two-characters';
const TOKEN = '1234 5678 9012 3456 7890';

describe('tokens sealed at rest', () => {
  it('seals with a fresh IV each time, names its key, and opens back to the clear text', () => {
    const sealer = sealerOf(KEY);
    const a = sealer.seal(TOKEN);
    const b = sealer.seal(TOKEN);
    expect(a).not.toBe(b);
    expect(a).toMatch(new RegExp(`^sealed:v1:${sealer.keyId}:[A-Za-z0-9+/=]+$`));
    expect(a).not.toContain('1234');
    expect([sealer.open(a), sealer.open(b)]).toEqual([TOKEN, TOKEN]);
    expect(sealer.isCurrent(a)).toBe(true);
    expect(sealer.open(sealer.seal(''))).toBe('');
    expect(sealer.open(sealer.seal('Pula ✓ Setswana'))).toBe('Pula ✓ Setswana');
  });

  it('reads a row kept in clear before sealing as it is', () => {
    const sealer = sealerOf(KEY);
    expect(sealer.open(TOKEN)).toBe(TOKEN);
    expect(isSealed(TOKEN)).toBe(false);
    expect(sealer.isCurrent(TOKEN)).toBe(false);
  });

  it('after a rotation, opens what the previous key sealed; without it, refuses naming the key', () => {
    const before = sealerOf(OLD);
    const sealedBefore = before.seal(TOKEN);
    const after = sealerOf(KEY, [OLD]);
    expect(after.keyId).not.toBe(before.keyId);
    expect(after.open(sealedBefore)).toBe(TOKEN);
    expect(after.isCurrent(sealedBefore)).toBe(false);
    expect(after.isCurrent(after.seal(TOKEN))).toBe(true);
    expect(() => sealerOf(KEY).open(sealedBefore)).toThrow(UnknownTokenKeyError);
    expect(() => sealerOf(KEY).open(sealedBefore)).toThrow(new RegExp(`sealed under key ${before.keyId}`));
  });

  it('refuses a sealed value that was tampered with (GCM tag)', () => {
    const sealer = sealerOf(KEY);
    const sealed = sealer.seal(TOKEN);
    const body = Buffer.from(sealed.split(':')[3], 'base64');
    body[body.length - 1] ^= 1;
    expect(() => sealer.open(`sealed:v1:${sealer.keyId}:${body.toString('base64')}`)).toThrow();
  });

  it('the embedded mode keeps its key in DATA_DIR/secrets (0600), the same for every process', () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-key-'));
    try {
      const first = sealerFor({ dataDir: dir });
      const second = sealerFor({ dataDir: dir });
      expect(second.keyId).toBe(first.keyId);
      expect(second.open(first.seal(TOKEN))).toBe(TOKEN);
      expect(statSync(tokenKeyPath(dir)).mode & 0o777).toBe(0o600);
      // A configured key wins over the file.
      expect(sealerFor({ dataDir: dir, tokenKey: KEY }).keyId).toBe(sealerOf(KEY).keyId);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
