// Short-lived access tokens: HS256 JWTs with sub (user id) and exp. Verification never touches the database.
import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';

const ISSUER = 'murmur';
const AUDIENCE = 'murmur-api';

export interface AccessTokens {
  sign(userId: string): Promise<string>;
  /** The user id, or null for a missing, malformed, expired or forged token. */
  verify(token: string): Promise<string | null>;
  /**
   * The user id of a token verify() accepted and that has not expired since, at once; undefined otherwise (verify it).
   * The same answer as verify(), without a promise: most requests of a signed-in client carry such a token.
   */
  cached(token: string): string | undefined;
}

/** Users' ids are UUIDs (the users table's primary key). */
const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Verified tokens kept until they expire, so a busy client costs one signature check per token, not per request. */
const VERIFIED_CACHE_SIZE = 10_000;

export function createAccessTokens(key: Uint8Array, ttlSeconds: number): AccessTokens {
  const verified = new Map<string, { userId: string; expiresAtMs: number }>();
  const cached = (token: string) => {
    const entry = verified.get(token);
    if (!entry) return undefined;
    if (entry.expiresAtMs > Date.now()) return entry.userId;
    verified.delete(token);
    return undefined;
  };
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
    cached,
    async verify(token) {
      const known = cached(token);
      if (known !== undefined) return known;
      try {
        const { payload } = await jwtVerify(token, key, {
          issuer: ISSUER,
          audience: AUDIENCE,
          algorithms: ['HS256'],
        });
        // Only this server signs these tokens, with a user id as subject; anything else is refused, never queried.
        if (
          typeof payload.sub !== 'string' ||
          !USER_ID.test(payload.sub) ||
          typeof payload.exp !== 'number'
        ) {
          return null;
        }
        if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string);
        verified.set(token, { userId: payload.sub, expiresAtMs: payload.exp * 1000 });
        return payload.sub;
      } catch {
        return null;
      }
    },
  };
}
