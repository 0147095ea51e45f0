// The social API's query routes (issue 4); registered under /social by server/routes.ts.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

export const queryRoutes: FastifyPluginAsyncZod = async () => {};
