// Cross-cutting authentication: routes opt in with `preHandler: app.requireUser`, then read request.userId.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { AccessClaims, AccessTokens } from './access-token';
import type { SignInStates } from './sign-in-state';
import { unauthorized } from '@server/errors';

declare module 'fastify' {
  interface FastifyInstance {
    accessTokens: AccessTokens;
    /** Whether a sign-in is live; the auth routes tell it of the sign-ins they end. */
    signIns: SignInStates;
    /** An onRequest hook: request.userId, or 401. */
    requireUser: onRequestHookHandler;
  }
  interface FastifyRequest {
    userId: string;
  }
}

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1] ?? null;
}

export const authenticate = fp(
  async (app: FastifyInstance, options: { accessTokens: AccessTokens; signIns: SignInStates }) => {
    const { accessTokens, signIns } = options;
    app.decorate('accessTokens', accessTokens);
    app.decorate('signIns', signIns);
    app.decorateRequest('userId', '');
    const refuse = () => unauthorized('A valid access token is required.');
    const ended = () => unauthorized('This sign-in has ended. Sign in again.');
    // Callback style: a token verified before whose sign-in is known to be live (most requests) is answered without
    // a promise or a tick.
    app.decorate(
      'requireUser',
      (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
        const admit = (claims: AccessClaims) => {
          request.userId = claims.userId;
          done();
        };
        // The sign-in must be live and the subject's own: a token naming another user's live sign-in is refused.
        const decide = (claims: AccessClaims, owner: string | false) => {
          if (owner === false) return done(ended());
          return owner === claims.userId ? admit(claims) : done(refuse());
        };
        const whenLive = (claims: AccessClaims) => {
          const owner = signIns.known(claims.signInId);
          if (owner !== undefined) return decide(claims, owner);
          signIns.check(claims.signInId).then((read) => decide(claims, read), done);
        };
        const token = bearerToken(request);
        if (!token) return done(refuse());
        const known = accessTokens.cached(token);
        if (known !== undefined) return whenLive(known);
        accessTokens.verify(token).then((claims) => (claims ? whenLive(claims) : done(refuse())), done);
      },
    );
  },
  { name: 'authenticate' },
);
