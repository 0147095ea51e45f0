// Text PostgreSQL cannot store (a NUL, a lone UTF-16 surrogate) in any string a request carries: every route of the
// OpenAPI document (generated from the zod contract), every string field of its body, query string and path, answers
// 400 invalid_request naming the field, never 500.
import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorResponseSchema } from '@contract/errors';
import { UNSTORABLE_TEXT_MESSAGE } from '@contract/text';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';

/** In a JSON body: NUL, a lone high surrogate, a lone low one. */
const BAD_JSON = ['a\u0000b', 'a\ud800', '\udfffb'];
/** In a URL only NUL can be written (a lone surrogate has no UTF-8 form to percent-encode). */
const BAD_URL = 'a\u0000b';

type Json = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Json>;
  items?: Json;
  anyOf?: Json[];
  oneOf?: Json[];
  allOf?: Json[];
  additionalProperties?: boolean | Json;
  enum?: unknown[];
  format?: string;
  const?: unknown;
};
type Path = (string | number)[];
interface Leaf {
  path: Path;
  /** A value of the schema's shape holding `bad` at `path` (and a union branch's constants beside it). */
  sample: (bad: string) => unknown;
}
interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema: Json;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Json }> };
}

let server: TestServer;
let owner: Person;
let workspaceId: string;
let components: Record<string, Json> = {};

beforeAll(async () => {
  server = await createTestServer();
  owner = await server.createUser({ isStaff: true });
  workspaceId = (await createWorkspace(server, [[owner, 'owner']])).id;
});
afterAll(() => server.close());

function resolve(schema: Json): Json {
  if (!schema.$ref) return schema;
  const name = schema.$ref.split('/').at(-1)!;
  return components[name]!;
}

/** Every string a value of the schema can hold, found through objects, arrays, records and unions. */
function stringLeaves(raw: Json, depth = 0): Leaf[] {
  const schema = resolve(raw);
  if (depth > 10) return [];
  const leaves: Leaf[] = [];
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) {
    leaves.push(...stringLeaves(branch, depth + 1));
  }
  const types = [schema.type ?? []].flat();
  if (types.includes('string')) leaves.push({ path: [], sample: (bad) => bad });
  if (types.includes('array') && schema.items) {
    for (const leaf of stringLeaves(schema.items, depth + 1)) {
      leaves.push({ path: [0, ...leaf.path], sample: (bad) => [leaf.sample(bad)] });
    }
  }
  if (types.includes('object')) {
    const properties = schema.properties ?? {};
    // A discriminated union's branch is chosen by its constant (a refinement's `field`).
    const constants = Object.fromEntries(
      Object.entries(properties)
        .filter(([, property]) => 'const' in resolve(property))
        .map(([key, property]) => [key, resolve(property).const]),
    );
    for (const [key, property] of Object.entries(properties)) {
      for (const leaf of stringLeaves(property, depth + 1)) {
        leaves.push({
          path: [key, ...leaf.path],
          sample: (bad) => ({ ...constants, [key]: leaf.sample(bad) }),
        });
      }
    }
    if (typeof schema.additionalProperties === 'object') {
      for (const leaf of stringLeaves(schema.additionalProperties, depth + 1)) {
        leaves.push({ path: ['key', ...leaf.path], sample: (bad) => ({ key: leaf.sample(bad) }) });
      }
    }
  }
  return leaves;
}

/** A valid value for a path or query parameter that is not the one under test. */
function filler(parameter: Parameter): string {
  const schema = resolve(parameter.schema);
  if (parameter.in === 'path' && parameter.name === 'id') return workspaceId;
  if (schema.enum) return String(schema.enum[0]);
  if (schema.format === 'uuid') return randomUUID();
  if (schema.type === 'integer' || schema.type === 'number') return '1';
  return 'x';
}

interface Case {
  name: string;
  method: string;
  url: string;
  payload?: unknown;
  /** The field the 400 names, as the error's `fields[].path` writes it. */
  field: string;
}

/** One request per string field (and per bad value) of every route in the OpenAPI document. */
function cases(doc: { paths: Record<string, Record<string, Operation>> }): Case[] {
  const all: Case[] = [];
  for (const [template, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const parameters = operation.parameters ?? [];
      const url = (poisoned?: Parameter) => {
        const value = (p: Parameter) => encodeURIComponent(p === poisoned ? BAD_URL : filler(p));
        const path = template.replace(/\{(\w+)\}/g, (_, name: string) =>
          value(parameters.find((p) => p.in === 'path' && p.name === name)!),
        );
        const query = parameters
          .filter((p) => p.in === 'query' && (p.required || p === poisoned))
          .map((p) => `${p.name}=${value(p)}`);
        return query.length ? `${path}?${query.join('&')}` : path;
      };
      const verb = method.toUpperCase();
      for (const parameter of parameters) {
        if (parameter.in !== 'path' && parameter.in !== 'query') continue;
        if (stringLeaves(parameter.schema).length === 0) continue;
        all.push({
          name: `${verb} ${template} ${parameter.in} ${parameter.name}`,
          method: verb,
          url: url(parameter),
          field: parameter.name,
        });
      }
      const body = operation.requestBody?.content['application/json']?.schema;
      if (!body) continue;
      for (const leaf of stringLeaves(body)) {
        for (const bad of BAD_JSON) {
          all.push({
            name: `${verb} ${template} body ${leaf.path.join('.')} ${JSON.stringify(bad)}`,
            method: verb,
            url: url(),
            payload: leaf.sample(bad),
            field: leaf.path.join('.'),
          });
        }
      }
      // Keys are strings too (a record's, or one the schema would drop).
      all.push({
        name: `${verb} ${template} body key`,
        method: verb,
        url: url(),
        payload: { [BAD_URL]: 1 },
        field: BAD_URL,
      });
    }
  }
  return all;
}

describe('text PostgreSQL cannot store, in every string of every request', () => {
  it('is a 400 invalid_request naming the field on every route, never a 500', async () => {
    const doc = server.app.swagger() as unknown as {
      paths: Record<string, Record<string, Operation>>;
      components?: { schemas?: Record<string, Json> };
    };
    components = doc.components?.schemas ?? {};
    // Union branches reach one path with different constants beside it: each distinct request once.
    const seen = new Set<string>();
    const all = cases(doc).filter((c) => {
      const key = `${c.method} ${c.url} ${JSON.stringify(c.payload)}`;
      return !seen.has(key) && seen.add(key);
    });
    // The walk reaches the refinements' values, the filters' lists and the path's ids.
    expect(all.map((c) => c.name)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('POST /social/insights/overview body refine.0.values.0'),
        expect.stringContaining('POST /social/discover body filters.platforms.0'),
        expect.stringContaining('GET /api/workspaces/{id} path id'),
        expect.stringContaining('POST /api/scraping/uploads query file_name'),
      ]),
    );
    const wrong: string[] = [];
    for (const { name, field, ...request } of all) {
      const res = await as(server, owner, request as Parameters<typeof as>[2]);
      const body = z.safeParse(errorResponseSchema, res.json());
      const named = body.success
        ? body.data.fields?.some((f) => f.path === field && f.message === UNSTORABLE_TEXT_MESSAGE)
        : false;
      if (res.statusCode !== 400 || !body.success || body.data.error !== 'invalid_request' || !named) {
        wrong.push(`${name}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('is a 400 in a term refinement on every dashboard and export (it was a 500)', async () => {
    const routes = [
      'posts',
      'overview',
      'people',
      'performance',
      'conversation',
      'filtered-posts',
      'filtered-profiles',
      'export/posts',
      'export/profiles',
    ];
    for (const route of routes) {
      for (const bad of BAD_JSON) {
        const res = await as(server, owner, {
          method: 'POST',
          url: `/social/insights/${route}`,
          payload: { workspace_id: workspaceId, query: 'coffee', refine: [{ field: 'term', values: [bad] }] },
        });
        expect(res.statusCode, `${route} ${JSON.stringify(bad)}: ${res.body}`).toBe(400);
        expect(res.json()).toEqual({
          error: 'invalid_request',
          message: 'The request is not valid.',
          fields: [{ path: 'refine.0.values.0', message: UNSTORABLE_TEXT_MESSAGE }],
        });
      }
      // One word in any script is still a term.
      const ok = await as(server, owner, {
        method: 'POST',
        url: `/social/insights/${route}`,
        payload: {
          workspace_id: workspaceId,
          query: 'coffee',
          refine: [{ field: 'term', values: ['東京🚀'] }],
        },
      });
      expect(ok.statusCode, `${route}: ${ok.body}`).toBe(200);
    }
  });
});
