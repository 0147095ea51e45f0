// Cross-cutting authentication: routes opt in with `preHandler: app.requireUser`, then read request.userId.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AccessTokens } from './access-token';
import { unauthorized } from '../errors';

declare module 'fastify' {
  interface FastifyInstance {
    accessTokens: AccessTokens;
    requireUser: (request: FastifyRequest) => Promise<void>;
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
    app.decorate('requireUser', async (request: FastifyRequest) => {
      const token = bearerToken(request);
      const userId = token ? await options.accessTokens.verify(token) : null;
      if (!userId) throw unauthorized('A valid access token is required.');
      request.userId = userId;
    });
  },
  { name: 'authenticate' },
);
