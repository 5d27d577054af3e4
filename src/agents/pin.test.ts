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

describe('PIN hashing', () => {
  it('hashes with scrypt, a fresh salt each time and the parameters kept', async () => {
    const a = await hashPin('480273');
    const b = await hashPin('480273');
    expect(a.params).toEqual(DEFAULT_SCRYPT);
    expect(a.salt).not.toBe(b.salt);
    expect(a.hash).not.toBe(b.hash);
    expect(Buffer.from(a.hash, 'base64')).toHaveLength(DEFAULT_SCRYPT.keyLen);
    const expected = crypto.scryptSync('480273', Buffer.from(a.salt, 'base64'), 32, { N: 16384, r: 8, p: 1 });
    expect(a.hash).toBe(expected.toString('base64'));
    expect(JSON.stringify(a)).not.toContain('480273');
  });

  it('matches the right PIN only, with the stored parameters', async () => {
    const params = { N: 1024, r: 8, p: 1, keyLen: 32 };
    const stored = await hashPin('4802', params);
    expect(await pinMatches('4802', stored)).toBe(true);
    for (const wrong of ['4803', '48020', '', '4802 ', 'x'.repeat(1000)])
      expect(await pinMatches(wrong, stored)).toBe(false);
  });

  it('compares in constant time: every check goes through timingSafeEqual', async () => {
    const stored = await hashPin('4802', { N: 1024, r: 8, p: 1, keyLen: 32 });
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    try {
      await pinMatches('4802', stored);
      await pinMatches('9999', stored);
      await pinMatches('not a pin', stored);
      expect(spy).toHaveBeenCalledTimes(3);
      for (const [a, b] of spy.mock.calls) expect((a as Buffer).length).toBe((b as Buffer).length);
    } finally {
      spy.mockRestore();
    }
  });

  it('asks for a re-hash when the parameters were raised', () => {
    expect(needsRehash({ params: DEFAULT_SCRYPT }, DEFAULT_SCRYPT)).toBe(false);
    expect(needsRehash({ params: { ...DEFAULT_SCRYPT, N: 1024 } }, DEFAULT_SCRYPT)).toBe(true);
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
