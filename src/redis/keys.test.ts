import fc from 'fast-check';
import { fromKeyPart, hashSlot, hashTagOf, keyPart, keyPrefix } from './keys';
import { CrossSlotError, numKeysOf, ScriptSet } from './scripts';
import type { Redis } from 'ioredis';

describe('hashSlot (the Redis Cluster key slot)', () => {
  it.each([
    ['123456789', 12739], // the CRC16 check value of the Cluster specification (0x31C3)
    ['foo', 12182],
    ['{user1000}.following', hashSlot('user1000')],
    ['{}.x', hashSlot('{}.x')],
  ])('%s → %i', (key, slot) => {
    expect(hashSlot(key)).toBe(slot);
  });

  it('hashes only the first non-empty {tag}', () => {
    expect(hashTagOf('gw:purchase:{purchases}:record:{x}')).toBe('purchases');
    expect(hashTagOf('a{}b{c}')).toBe('a{}b{c}');
    expect(hashTagOf('a{b')).toBe('a{b');
  });
});

describe('keyPrefix', () => {
  it.each([
    ['gw', 'gw:'],
    ['gw:', 'gw:'],
    ['', ''],
  ])('%j → %j', (prefix, expected) => expect(keyPrefix(prefix)).toBe(expected));

  it('refuses a prefix that would become every key’s hash tag', () => {
    expect(() => keyPrefix('{gw}')).toThrow(/must not contain/);
  });
});

describe("keyPart (a caller's text inside a key)", () => {
  it('percent-encodes, so the text cannot add a hash tag or a separator', () => {
    expect(keyPart('ATXid_{x}:1')).toBe('ATXid_%7Bx%7D%3A1');
    expect(keyPart('\u{1f600}')).toBe('%F0%9F%98%80');
  });

  it('writes a lone surrogate as %uXXXX instead of throwing, keeping distinct texts distinct', () => {
    expect(keyPart('a\ud800b\udc00{')).toBe('a%uD800b%uDC00%7B');
    const texts = ['\ud800', '\udc00', '\ufffd', '%uD800', '\ud800\udc00', '\udc00\ud800'];
    expect(new Set(texts.map(keyPart)).size).toBe(texts.length);
  });

  it('is inverted by fromKeyPart for any UTF-16 text, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const part = keyPart(text);
        expect(part).not.toMatch(/[{}:]/);
        expect(fromKeyPart(part)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('ScriptSet (the one script loader)', () => {
  const scripts = new ScriptSet('purchase', 2, __dirname, ['createPurchase-5', 'unlock-1'] as const);

  it('reads numKeys from the file name and names the command by kind, verbNoun and version', () => {
    expect(numKeysOf('createPurchase-5')).toBe(5);
    expect(() => numKeysOf('noCount')).toThrow(/-<numKeys>/);
    expect(scripts.commandName('createPurchase-5')).toBe('purchaseCreatePurchase_v2');
  });

  it('refuses keys of two cluster slots before reaching Redis', async () => {
    await expect(
      scripts.run({} as Redis, 'createPurchase-5', ['{a}1', '{a}2', '{a}3', '{a}4', '{b}5'], []),
    ).rejects.toBeInstanceOf(CrossSlotError);
  });
});
