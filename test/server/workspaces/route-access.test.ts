// The route-access hook on its own: a small app with routes that declare (or do not declare) their workspace, on the
// test server's database (teams, staff and the internal workspace as the real routes see them).
import Fastify, { type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import {
  hasZodFastifySchemaValidationErrors,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '@server/auth/authenticate';
import { ApiError } from '@server/errors';
import { routeAccess, workspaceAccessOf } from '@server/workspaces/route-access';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { addMember, createTeam, type Person, type Team } from '@test/support/workspaces.fixtures';

let server: TestServer;
let app: FastifyInstance;

const params = z.object({ id: z.string() });
const body = z.object({ workspace_id: z.string(), note: z.optional(z.string()) });
const refused = () => new ApiError(403, 'owners_only', 'Only owners may.');

/** A bare app with the real authentication and the hook, and its own error mapping (as server/app.ts's). */
async function buildProbeApp(server: TestServer) {
  const probe = Fastify().withTypeProvider<ZodTypeProvider>();
  probe.setValidatorCompiler(validatorCompiler);
  probe.setSerializerCompiler(serializerCompiler);
  probe.setErrorHandler((error: FastifyError, _request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error))
      return reply.status(400).send({ error: 'invalid_request' });
    if (error instanceof ApiError) {
      return reply.status(error.statusCode).send({ error: error.code, message: error.message });
    }
    return reply.status(500).send({ error: 'internal', message: error.message });
  });
  await probe.register(authenticate, { accessTokens: server.accessTokens, signIns: server.app.signIns });
  await probe.register(routeAccess, { db: server.db, config: server.config });

  const seen = (request: FastifyRequest) => {
    const { workspace, privilege, isMember } = workspaceAccessOf(request);
    return { id: workspace.id, privilege, isMember };
  };

  await probe.register(async (plugin) => {
    const scope = plugin.withTypeProvider<ZodTypeProvider>();
    scope.addHook('onRequest', scope.requireUser);
    scope.get('/undeclared/:id', { schema: { params } }, async (request) => ({
      id: request.params.id,
      access: request.workspaceAccess,
    }));
    scope.get('/undeclared-reader/:id', { schema: { params } }, async (request) => seen(request));
    scope.get(
      '/viewer/:id',
      { config: { workspace: { from: 'params', minimum: 'viewer' } }, schema: { params } },
      async (request) => seen(request),
    );
    scope.get(
      '/manager/:id',
      { config: { workspace: { from: 'params', minimum: 'manager' } }, schema: { params } },
      async (request) => seen(request),
    );
    scope.get(
      '/owner/:id',
      { config: { workspace: { from: 'params', minimum: 'owner', denied: refused } }, schema: { params } },
      async (request) => seen(request),
    );
    scope.post(
      '/body',
      { config: { workspace: { from: 'body', minimum: 'viewer' } }, schema: { body } },
      async (request) => seen(request),
    );
  });
  // No requireUser in this scope: the hook refuses rather than resolve a workspace for nobody.
  await probe.register(async (scope) => {
    scope.get(
      '/unauthenticated/:id',
      { config: { workspace: { from: 'params', minimum: 'viewer' } }, schema: { params } },
      async (request) => seen(request),
    );
  });
  await probe.ready();
  return probe;
}

beforeAll(async () => {
  server = await createTestServer();
  app = await buildProbeApp(server);
});
afterAll(async () => {
  await app.close();
  await server.close();
});

const get = (person: Person | null, url: string) =>
  app.inject({ method: 'GET', url, headers: person ? { authorization: `Bearer ${person.token}` } : {} });
const post = (person: Person, url: string, payload: unknown) =>
  app.inject({
    method: 'POST',
    url,
    payload: payload as object,
    headers: { authorization: `Bearer ${person.token}` },
  });

describe('a route without a declaration', () => {
  it('is untouched: no lookup, no 404 for a workspace that does not exist, no access on the request', async () => {
    const person = await server.createUser();
    const res = await get(person, '/undeclared/no-such-workspace');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 'no-such-workspace', access: null });
  });

  it('cannot read an access it never declared', async () => {
    const team = await createTeam(server);
    const res = await get(team.owner, `/undeclared-reader/${team.workspaceId}`);
    expect(res.statusCode).toBe(500);
    expect(res.json().message).toMatch(/declares no config\.workspace/);
  });
});

describe('where the workspace id is read', () => {
  it('from params: the path :id', async () => {
    const team = await createTeam(server);
    const res = await get(team.viewer, `/viewer/${team.workspaceId}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: team.workspaceId, privilege: 'viewer', isMember: true });
  });

  it("from body: workspace_id, after the body's validation", async () => {
    const team = await createTeam(server);
    const res = await post(team.manager, '/body', { workspace_id: team.workspaceId });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: team.workspaceId, privilege: 'manager', isMember: true });
    expect((await post(team.manager, '/body', { note: 'no id' })).statusCode).toBe(400);
    expect((await post(team.outsider, '/body', { workspace_id: team.workspaceId })).statusCode).toBe(404);
  });
});

describe('non-members', () => {
  it('get the same 404 for a workspace that exists and one that does not', async () => {
    const team = await createTeam(server);
    const hidden = await get(team.outsider, `/viewer/${team.workspaceId}`);
    const missing = await get(team.outsider, '/viewer/no-such-workspace');
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toMatchObject({ error: 'workspace_not_found' });
    expect(hidden.json()).toEqual(missing.json());
  });

  it('and signed-out callers get 401 before any lookup', async () => {
    const team = await createTeam(server);
    expect((await get(null, `/viewer/${team.workspaceId}`)).statusCode).toBe(401);
    expect((await get(team.owner, `/unauthenticated/${team.workspaceId}`)).statusCode).toBe(401);
  });
});

describe('the minimum privilege', () => {
  // prettier-ignore
  const expected: Array<[route: string, owner: number, manager: number, viewer: number]> = [
    ['viewer',  200, 200, 200],
    ['manager', 200, 200, 403],
    ['owner',   200, 403, 403],
  ];
  it.each(expected)('/%s/:id → owner %i, manager %i, viewer %i', async (route, ...statuses) => {
    const team: Team = await createTeam(server);
    const people = [team.owner, team.manager, team.viewer];
    const answers = await Promise.all(people.map((person) => get(person, `/${route}/${team.workspaceId}`)));
    expect(answers.map((res) => res.statusCode)).toEqual(statuses);
  });

  it("answers 403 forbidden below it, or the route's own refusal", async () => {
    const team = await createTeam(server);
    expect((await get(team.viewer, `/manager/${team.workspaceId}`)).json()).toEqual({
      error: 'forbidden',
      message: 'You do not have permission to do this.',
    });
    expect((await get(team.manager, `/owner/${team.workspaceId}`)).json()).toEqual({
      error: 'owners_only',
      message: 'Only owners may.',
    });
  });
});

describe('the internal workspace', () => {
  const internal = () => server.config.INTERNAL_WORKSPACE_ID;

  it('lets staff who are not members in as viewers, not as managers', async () => {
    const staff = await server.createUser({ isStaff: true });
    const res = await get(staff, `/viewer/${internal()}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: internal(), privilege: 'viewer', isMember: false });
    expect((await get(staff, `/manager/${internal()}`)).statusCode).toBe(403);
  });

  it('gives staff members their own privilege, and hides it from anyone else, members included', async () => {
    const staff = await server.createUser({ isStaff: true });
    await addMember(server, internal(), staff, 'manager');
    expect((await get(staff, `/manager/${internal()}`)).json()).toMatchObject({
      privilege: 'manager',
      isMember: true,
    });
    const member = await server.createUser();
    await addMember(server, internal(), member, 'owner');
    const res = await get(member, `/viewer/${internal()}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: 'workspace_not_found' });
  });
});

describe('a declaration that cannot be met', () => {
  it('fails when the route is added, not on a request', async () => {
    for (const declare of [
      (probe: FastifyInstance) =>
        probe.get(
          '/no-id/:workspace',
          { config: { workspace: { from: 'params', minimum: 'viewer' } } },
          () => '',
        ),
      (probe: FastifyInstance) =>
        probe.post('/no-body', { config: { workspace: { from: 'body', minimum: 'viewer' } } }, () => ''),
    ]) {
      const probe = Fastify();
      await probe.register(authenticate, { accessTokens: server.accessTokens, signIns: server.app.signIns });
      await probe.register(routeAccess, { db: server.db, config: server.config });
      await expect(
        probe.register(async (scope) => {
          declare(scope);
        }),
      ).rejects.toThrow(/declares config\.workspace/);
      await probe.close().catch(() => {});
    }
  });
});
