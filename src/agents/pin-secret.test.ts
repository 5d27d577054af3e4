import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pinSecretFor, pinSecretPath } from './pin-secret';

describe('the PIN secret', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pin-secret-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is AGENT_PIN_SECRET when set, whatever the data directory', () => {
    expect(pinSecretFor('x'.repeat(32), dir).toString()).toBe('x'.repeat(32));
  });

  it('in the embedded mode: made at first start in DATA_DIR/secrets (0600), the same at the next', () => {
    const first = pinSecretFor(null, dir);
    expect(first).toHaveLength(32);
    expect(statSync(pinSecretPath(dir)).mode & 0o777).toBe(0o600);
    expect(pinSecretFor(null, dir).equals(first)).toBe(true);
    // Another data directory: another key.
    const other = mkdtempSync(join(tmpdir(), 'pin-secret-'));
    try {
      expect(pinSecretFor(null, other).equals(first)).toBe(false);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('for memory://: one random key per process, in memory', () => {
    const a = pinSecretFor(null, 'memory://');
    expect(pinSecretFor(undefined, 'memory://').equals(a)).toBe(true);
    expect(a).toHaveLength(32);
  });
});
