// The users domain's routes; registered under /api by server/routes.ts.
import { eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { users } from '@server/db/schema';
import { unauthorized } from '@server/errors';
import { currentUserResponseSchema, updateProfileBodySchema } from '@contract/workspaces';
import { bearer, errorResponses } from '@server/openapi';
import { prepareCurrentUserQueries } from './current-user';

const tags = ['users'];

export const userRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.deps;
  const currentUser = prepareCurrentUserQueries(db, config);

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
    async (request, reply) => {
      // JSON text checked against the response schema when it was kept (server/users/current-user.ts). A string with
      // a JSON content type is sent as it is, past the serializer, which the reply's type cannot say.
      const me = await currentUser.json(request.userId);
      if (me === null) throw unauthorized();
      return reply.type('application/json; charset=utf-8').send(me as never);
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
      const me = await currentUser.load(request.userId);
      if (!me) throw unauthorized();
      return me;
    },
  );
};
