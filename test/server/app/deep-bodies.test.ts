// A JSON body nested thousands of levels deep, on every route of the OpenAPI document that takes one: a 400
// invalid_request saying how deep a body may nest (413 too_large when the brackets alone pass the body limit), signed
// in or out, in prod too; never a 500 (a recursive walk of the body used to overflow the call stack).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, TOO_DEEP_MESSAGE } from '@server/validation';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';

/** The app's bodyLimit (server/app.ts). */
const BODY_LIMIT = 256 * 1024;
const DEPTHS = [1_000, 5_000, 100_000];

/** `depth` nested arrays, or objects, around a number: the text, written out (JSON.stringify would recurse too). */
function nested(kind: 'array' | 'object', depth: number): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

interface Operation {
  parameters?: {
    in: string;
    name: string;
    required?: boolean;
    schema: { enum?: unknown[]; type?: string };
  }[];
  requestBody?: { content: Record<string, unknown> };
}

/** Every route of the document whose body is JSON, with its path and required query parameters filled in. */
function jsonRoutes(server: TestServer, workspaceId: string): { method: string; url: string }[] {
  const doc = server.app.swagger() as unknown as { paths: Record<string, Record<string, Operation>> };
  const routes: { method: string; url: string }[] = [];
  for (const [template, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!operation.requestBody?.content['application/json']) continue;
      const parameters = operation.parameters ?? [];
      const fill = (name: string) => {
        const parameter = parameters.find((p) => p.name === name);
        if (name === 'id') return workspaceId;
        if (parameter?.schema.enum) return String(parameter.schema.enum[0]);
        if (parameter?.schema.type === 'integer' || parameter?.schema.type === 'number') return '1';
        return randomUUID();
      };
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => fill(name));
      const query = parameters
        .filter((p) => p.in === 'query' && p.required)
        .map((p) => `${p.name}=${fill(p.name)}`);
      routes.push({ method: method.toUpperCase(), url: query.length ? `${path}?${query.join('&')}` : path });
    }
  }
  return routes;
}

let server: TestServer;
let prod: TestServer;
let owner: Person;
let workspaceId: string;

beforeAll(async () => {
  server = await createTestServer();
  prod = await createTestServer({ APP_ENV: 'prod' });
  owner = await server.createUser({ isStaff: true });
  workspaceId = (await createWorkspace(server, [[owner, 'owner']])).id;
});
afterAll(async () => {
  await server?.close();
  await prod?.close();
});

/** What each deep body got on each route, wrong answers only: the route, the body, the status and the answer. */
async function wrongAnswers(
  target: TestServer,
  person: Person | null,
  routes: { method: string; url: string }[],
  allowed: (route: { method: string; url: string }) => number[],
): Promise<string[]> {
  const wrong: string[] = [];
  for (const route of routes) {
    for (const kind of ['array', 'object'] as const) {
      for (const depth of DEPTHS) {
        const payload = nested(kind, depth);
        const res = await as(target, person, {
          ...route,
          headers: { 'content-type': 'application/json' },
          payload,
        } as Parameters<typeof as>[2]);
        const tooLarge = payload.length > BODY_LIMIT;
        const body = res.json();
        const right =
          res.statusCode === 413
            ? tooLarge && body.error === 'too_large'
            : res.statusCode === 400
              ? !tooLarge &&
                body.error === 'invalid_request' &&
                JSON.stringify(body.fields) === JSON.stringify([{ path: 'body', message: TOO_DEEP_MESSAGE }])
              : allowed(route).includes(res.statusCode);
        if (!right)
          wrong.push(
            `${route.method} ${route.url} ${kind} ${depth}: ${res.statusCode} ${res.body.slice(0, 160)}`,
          );
      }
    }
  }
  return wrong;
}

describe('a body nested deeper than any request', () => {
  it('is refused on every JSON route, signed in: 400 invalid_request, or 413 past the body limit', async () => {
    const routes = jsonRoutes(server, workspaceId);
    expect(routes.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining([
        'POST /api/auth/login',
        'POST /api/workspaces',
        'POST /social/insights/overview',
      ]),
    );
    // Testing an alert rule is limited to a few sends a minute, counted before the body is read.
    const limited = (route: { url: string }) => (/\/alert-rules\/[^/]+\/test$/.test(route.url) ? [429] : []);
    expect(await wrongAnswers(server, owner, routes, limited)).toEqual([]);
  });

  it('is refused on every JSON route signed out in prod: 401 where a user is required, else 400 or 413', async () => {
    const routes = jsonRoutes(prod, randomUUID());
    expect(await wrongAnswers(prod, null, routes, () => [401])).toEqual([]);
    // The sign-in itself reads the body signed out.
    const login = await prod.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: nested('array', 5_000),
    });
    expect(login.statusCode).toBe(400);
    expect(login.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('is read as usual up to the limit: an ignored member nested exactly that deep is no error', async () => {
    const deep = (depth: number) =>
      `{"workspace_id":"${workspaceId}","query":"nova","extra":${nested('array', depth - 1)}}`;
    const ok = await as(server, owner, {
      method: 'POST',
      url: '/social/query/validate',
      headers: { 'content-type': 'application/json' },
      payload: deep(MAX_JSON_DEPTH),
    });
    expect(ok.statusCode, ok.body).toBe(200);
    const refused = await as(server, owner, {
      method: 'POST',
      url: '/social/query/validate',
      headers: { 'content-type': 'application/json' },
      payload: deep(MAX_JSON_DEPTH + 1),
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      error: 'invalid_request',
      message: 'The request is not valid.',
      fields: [{ path: 'body', message: TOO_DEEP_MESSAGE }],
    });
  });
});
