// Short-lived access tokens: HS256 JWTs with sub (user id), sid (the sign-in's id: its refresh-token family) and exp.
// Verifying one never touches the database; whether its sign-in is still live is asked apart (sign-in-state.ts).
import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';

const ISSUER = 'murmur';
const AUDIENCE = 'murmur-api';

/** Whom a token stands for and the sign-in it was handed out for. */
export interface AccessClaims {
  userId: string;
  signInId: string;
}

export interface AccessTokens {
  sign(userId: string, signInId: string): Promise<string>;
  /** The claims, or null for a missing, malformed, expired or forged token. */
  verify(token: string): Promise<AccessClaims | null>;
  /**
   * The claims of a token verify() accepted and that has not expired since, at once; undefined otherwise (verify it).
   * The same answer as verify(), without a promise: most requests of a signed-in client carry such a token.
   */
  cached(token: string): AccessClaims | undefined;
}

/** Users' and sign-ins' ids are UUIDs (primary key and family id). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Verified tokens kept until they expire, so a busy client costs one signature check per token, not per request. */
const VERIFIED_CACHE_SIZE = 10_000;

export function createAccessTokens(key: Uint8Array, ttlSeconds: number): AccessTokens {
  const verified = new Map<string, { claims: AccessClaims; expiresAtMs: number }>();
  const cached = (token: string) => {
    const entry = verified.get(token);
    if (!entry) return undefined;
    if (entry.expiresAtMs > Date.now()) return entry.claims;
    verified.delete(token);
    return undefined;
  };
  return {
    sign: (userId, signInId) =>
      new SignJWT({ sid: signInId })
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
        // Only this server signs these tokens, with a user id as subject and a sign-in's id; anything else (a token
        // without its sign-in included) is refused, never queried.
        const { sub, sid, exp } = payload;
        if (
          typeof sub !== 'string' ||
          !UUID.test(sub) ||
          typeof sid !== 'string' ||
          !UUID.test(sid) ||
          typeof exp !== 'number'
        ) {
          return null;
        }
        const claims = { userId: sub, signInId: sid };
        if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string);
        verified.set(token, { claims, expiresAtMs: exp * 1000 });
        return claims;
      } catch {
        return null;
      }
    },
  };
}
