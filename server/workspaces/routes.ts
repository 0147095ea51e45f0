// The workspaces domain's routes (issue 3); registered under /api by server/routes.ts.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

export const workspaceRoutes: FastifyPluginAsyncZod = async () => {};
