import crypto from 'node:crypto';
import {
  DEFAULT_SCRYPT,
  hashPin,
  isWeakPin,
  needsRehash,
  newPinProblem,
  oneTimePin,
  pinMatches,
} from './pin';

const SECRET = Buffer.from('a-server-secret-of-at-least-32-characters');

describe('PIN hashing', () => {
  it('hashes with scrypt of HMAC(secret, PIN), a fresh salt each time and the parameters kept', async () => {
    const a = await hashPin('480273', SECRET);
    const b = await hashPin('480273', SECRET);
    expect(a.params).toEqual({ ...DEFAULT_SCRYPT, pepper: true });
    expect(a.salt).not.toBe(b.salt);
    expect(a.hash).not.toBe(b.hash);
    expect(Buffer.from(a.hash, 'base64')).toHaveLength(DEFAULT_SCRYPT.keyLen);
    const peppered = crypto.createHmac('sha256', SECRET).update('480273').digest();
    const salt = Buffer.from(a.salt, 'base64');
    const expected = crypto.scryptSync(peppered, salt, 32, { N: 16384, r: 8, p: 1 });
    expect(a.hash).toBe(expected.toString('base64'));
    // Without the secret, scrypt of the PIN with the salt is not what is kept.
    expect(a.hash).not.toBe(
      crypto.scryptSync('480273', salt, 32, { N: 16384, r: 8, p: 1 }).toString('base64'),
    );
    expect(JSON.stringify(a)).not.toContain('480273');
  });

  it('needs the same secret to verify; an older hash without pepper still verifies', async () => {
    const params = { N: 1024, r: 8, p: 1, keyLen: 32 };
    const stored = await hashPin('4802', SECRET, params);
    expect(await pinMatches('4802', stored, Buffer.from('another-secret-of-at-least-32-chars!'))).toBe(false);
    const salt = crypto.randomBytes(16);
    const old = {
      hash: crypto.scryptSync('4802', salt, 32, { N: 1024, r: 8, p: 1 }).toString('base64'),
      salt: salt.toString('base64'),
      params,
    };
    expect(await pinMatches('4802', old, SECRET)).toBe(true);
    expect(await pinMatches('4803', old, SECRET)).toBe(false);
  });

  it('matches the right PIN only, with the stored parameters', async () => {
    const params = { N: 1024, r: 8, p: 1, keyLen: 32 };
    const stored = await hashPin('4802', SECRET, params);
    expect(await pinMatches('4802', stored, SECRET)).toBe(true);
    for (const wrong of ['4803', '48020', '', '4802 ', 'x'.repeat(1000)])
      expect(await pinMatches(wrong, stored, SECRET)).toBe(false);
  });

  it('compares in constant time: every check goes through timingSafeEqual', async () => {
    const stored = await hashPin('4802', SECRET, { N: 1024, r: 8, p: 1, keyLen: 32 });
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    try {
      await pinMatches('4802', stored, SECRET);
      await pinMatches('9999', stored, SECRET);
      await pinMatches('not a pin', stored, SECRET);
      expect(spy).toHaveBeenCalledTimes(3);
      for (const [a, b] of spy.mock.calls) expect((a as Buffer).length).toBe((b as Buffer).length);
    } finally {
      spy.mockRestore();
    }
  });

  it('asks for a re-hash when the parameters were raised or the hash has no pepper', () => {
    const peppered = { ...DEFAULT_SCRYPT, pepper: true };
    expect(needsRehash({ params: peppered }, DEFAULT_SCRYPT)).toBe(false);
    expect(needsRehash({ params: { ...peppered, N: 1024 } }, DEFAULT_SCRYPT)).toBe(true);
    expect(needsRehash({ params: DEFAULT_SCRYPT }, DEFAULT_SCRYPT)).toBe(true);
  });
});

describe('new PINs', () => {
  it.each([
    ['4802', null],
    ['480273', null],
    ['123', 'format'],
    ['1234567', 'format'],
    ['12a4', 'format'],
    ['0000', 'weak'],
    ['1234', 'weak'],
    ['987654', 'weak'],
    ['8901', 'weak'],
  ])('%s → %s', (pin, problem) => {
    expect(newPinProblem(pin)).toBe(problem);
  });

  it('refuses the old PIN as the new one', () => {
    expect(newPinProblem('480273', '480273')).toBe('same');
  });

  it('one-time PINs are six digits and never weak', () => {
    for (let i = 0; i < 200; i += 1) {
      const pin = oneTimePin();
      expect(pin).toMatch(/^\d{6}$/);
      expect(isWeakPin(pin)).toBe(false);
    }
  });
});
