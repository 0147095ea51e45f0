import { describe, expect, it } from 'vitest';
import { isAccessTokenExpired, readExpiry } from '@/lib/jwt';
import { fakeJwt } from '@test/support/fake-http';

const NOW = 1_800_000_000_000;

describe('access-token expiry (spec §4, 30 s margin)', () => {
  it('is expired when missing, not decodable, or without a numeric exp', () => {
    expect(isAccessTokenExpired(null, NOW)).toBe(true);
    expect(isAccessTokenExpired('', NOW)).toBe(true);
    expect(isAccessTokenExpired('not-a-jwt', NOW)).toBe(true);
    expect(isAccessTokenExpired('a.%%%.c', NOW)).toBe(true);
    const noExp = `x.${Buffer.from(JSON.stringify({ sub: 'u' })).toString('base64url')}.y`;
    expect(isAccessTokenExpired(noExp, NOW)).toBe(true);
    const textExp = `x.${Buffer.from(JSON.stringify({ exp: '9999999999' })).toString('base64url')}.y`;
    expect(readExpiry(textExp)).toBeNull();
  });

  it('is expired within 30 seconds of exp and fresh beyond', () => {
    const nowSeconds = NOW / 1000;
    expect(isAccessTokenExpired(fakeJwt(nowSeconds + 30), NOW)).toBe(true);
    expect(isAccessTokenExpired(fakeJwt(nowSeconds + 31), NOW)).toBe(false);
    expect(isAccessTokenExpired(fakeJwt(nowSeconds - 1), NOW)).toBe(true);
  });

  it('decodes base64url payloads with non-ASCII claims', () => {
    const token = `x.${Buffer.from(JSON.stringify({ name: 'Zoë ✓', exp: 2_000_000_000 })).toString('base64url')}.y`;
    expect(readExpiry(token)).toBe(2_000_000_000);
  });
});
