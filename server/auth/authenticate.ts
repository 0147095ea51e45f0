// Cross-cutting authentication: routes opt in with `preHandler: app.requireUser`, then read request.userId.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { AccessTokens } from './access-token';
import { unauthorized } from '../errors';

declare module 'fastify' {
  interface FastifyInstance {
    accessTokens: AccessTokens;
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
  async (app: FastifyInstance, options: { accessTokens: AccessTokens }) => {
    app.decorate('accessTokens', options.accessTokens);
    app.decorateRequest('userId', '');
    const refuse = () => unauthorized('A valid access token is required.');
    // Callback style: a token verified before (most requests) is answered without a promise or a tick.
    app.decorate(
      'requireUser',
      (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
        const token = bearerToken(request);
        if (!token) return done(refuse());
        const known = options.accessTokens.cached(token);
        if (known !== undefined) {
          request.userId = known;
          return done();
        }
        options.accessTokens.verify(token).then((userId) => {
          if (!userId) return done(refuse());
          request.userId = userId;
          done();
        }, done);
      },
    );
  },
  { name: 'authenticate' },
);
