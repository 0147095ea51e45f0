// Short-lived access tokens: HS256 JWTs with sub (user id) and exp. Verification never touches the database.
import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';

const ISSUER = 'murmur';
const AUDIENCE = 'murmur-api';

export interface AccessTokens {
  sign(userId: string): Promise<string>;
  /** The user id, or null for a missing, malformed, expired or forged token. */
  verify(token: string): Promise<string | null>;
}

export function createAccessTokens(key: Uint8Array, ttlSeconds: number): AccessTokens {
  return {
    sign: (userId) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(userId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setJti(randomUUID())
        .setExpirationTime(`${ttlSeconds}s`)
        .sign(key),
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          issuer: ISSUER,
          audience: AUDIENCE,
          algorithms: ['HS256'],
        });
        return typeof payload.sub === 'string' ? payload.sub : null;
      } catch {
        return null;
      }
    },
  };
}
