// The users domain's routes; registered under /api by server/routes.ts.
import { eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { users } from '../db/schema';
import { unauthorized } from '../errors';
import { currentUserResponseSchema, updateProfileBodySchema } from '../../src/contract/workspaces';
import { bearer, errorResponses } from '../workspaces/openapi';
import { prepareCurrentUserQuery } from './current-user';

const tags = ['users'];

export const userRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.deps;
  const loadCurrentUser = prepareCurrentUserQuery(db, config);

  app.addHook('onRequest', app.requireUser);

  app.get(
    '/users/me',
    {
      schema: {
        tags,
        security: bearer,
        summary: 'The signed-in user and the workspaces they belong to',
        response: { 200: currentUserResponseSchema, ...errorResponses() },
      },
    },
    async (request) => {
      const me = await loadCurrentUser(request.userId);
      if (!me) throw unauthorized();
      return me;
    },
  );

  app.patch(
    '/users/me',
    {
      schema: {
        tags,
        security: bearer,
        summary: "Update the signed-in user's name",
        body: updateProfileBodySchema,
        response: { 200: currentUserResponseSchema, ...errorResponses(400) },
      },
    },
    async (request) => {
      const { first_name, last_name } = request.body;
      if (first_name !== undefined || last_name !== undefined) {
        await db
          .update(users)
          .set({
            ...(first_name !== undefined && { firstName: first_name }),
            ...(last_name !== undefined && { lastName: last_name }),
          })
          .where(eq(users.id, request.userId));
      }
      const me = await loadCurrentUser(request.userId);
      if (!me) throw unauthorized();
      return me;
    },
  );
};
