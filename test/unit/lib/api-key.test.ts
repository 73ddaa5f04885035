import { describe, expect, it } from 'vitest';
import { bearerToken, displayPrefix, generateApiKey, hashApiKey, hashesEqual, parseApiKey } from '../../../src/lib/api-key.js';

const SECRET = '4f9c2a7d0b1e8f3a6c5d9e2b7a1f0c4d';

describe('parseApiKey', () => {
  it('splits code and secret at the last underscore', () => {
    expect(parseApiKey(`mp_maple_${SECRET}`)).toEqual({ key: `mp_maple_${SECRET}`, sellerCode: 'maple', secret: SECRET });
    expect(parseApiKey(`mp_maple_leaf_cards_${SECRET}`)?.sellerCode).toBe('maple_leaf_cards');
    expect(parseApiKey(`mp_a-b_${SECRET.toUpperCase()}`)?.sellerCode).toBe('a-b');
  });

  it.each([
    ['empty', ''],
    ['no prefix', `maple_${SECRET}`],
    ['wrong prefix', `sk_maple_${SECRET}`],
    ['no code', `mp__${SECRET}`],
    ['no separator', `mp_${SECRET}`],
    ['short secret', `mp_maple_${SECRET.slice(1)}`],
    ['non-hex secret', `mp_maple_${SECRET.slice(1)}g`],
    ['empty secret', 'mp_maple_'],
    ['code with bad char', `mp_ma.ple_${SECRET}`],
    ['code starting with -', `mp_-maple_${SECRET}`],
    ['huge', `mp_maple_${'a'.repeat(10_000)}`],
  ])('refuses %s', (_name, key) => {
    expect(parseApiKey(key)).toBeNull();
  });
});

describe('bearerToken', () => {
  it('reads a bearer header, case-insensitively on the scheme', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer  abc ')).toBe('abc');
  });
  it.each([undefined, '', 'Bearer', 'Bearer ', 'Basic abc', 'Bearer a b', 'abc'])('refuses %s', (h) => {
    expect(bearerToken(h)).toBeNull();
  });
});

describe('key generation and hashing', () => {
  it('generates parseable keys with 64 hex secret characters, different each time', () => {
    const a = generateApiKey('maple_leaf');
    const b = generateApiKey('maple_leaf');
    expect(a).not.toBe(b);
    expect(parseApiKey(a)).toMatchObject({ sellerCode: 'maple_leaf' });
    expect(parseApiKey(a)!.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(displayPrefix(a)).toBe(`mp_maple_leaf_${parseApiKey(a)!.secret.slice(0, 8)}`);
  });
  it('refuses to generate a key for an invalid code', () => {
    expect(() => generateApiKey('bad code')).toThrow();
  });
  it('hashes the whole key with sha256 and compares in constant time', () => {
    const key = `mp_maple_${SECRET}`;
    expect(hashApiKey(key).toString('hex')).toBe('3ad0bf2b4635d5fcc15ebe63fcf302d9175eabeb0bdb356ec7474a1981d0b380'); // printf %s KEY | sha256sum
    expect(hashesEqual(hashApiKey(key), hashApiKey(key))).toBe(true);
    expect(hashesEqual(hashApiKey(key), hashApiKey(key + '0'))).toBe(false);
    expect(hashesEqual(hashApiKey(key), Buffer.alloc(3))).toBe(false);
  });
});
