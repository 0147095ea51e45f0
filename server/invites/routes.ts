// The invites domain's routes (issue 3); registered under /api by server/routes.ts.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

export const inviteRoutes: FastifyPluginAsyncZod = async () => {};
