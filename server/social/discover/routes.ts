// The social API's discover routes (issue 4); registered under /social by server/routes.ts.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

export const discoverRoutes: FastifyPluginAsyncZod = async () => {};
