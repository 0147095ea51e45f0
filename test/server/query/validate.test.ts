import * as z from 'zod/mini';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateQueryResponseSchema } from '@contract/social-query';
import { VALIDATE_PER_MINUTE } from '@server/social/editor/routes';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { createWorkspace, type Person } from '@test/support/workspaces.fixtures';
import { insertCorpus } from '@test/support/query-corpus.fixtures';

let server: TestServer;
let viewer: Person;
let outsider: Person;
let workspaceId: string;

beforeAll(async () => {
  server = await createTestServer();
  await insertCorpus(server);
  [viewer, outsider] = await Promise.all([server.createUser(), server.createUser()]);
  workspaceId = (await createWorkspace(server, [[viewer, 'viewer']])).id;
});
afterAll(() => server.close());

const validate = (person: Person | null, payload: object) =>
  server.app.inject({
    method: 'POST',
    url: '/social/query/validate',
    headers: person ? { authorization: `Bearer ${person.token}` } : {},
    payload,
  });

describe('POST /social/query/validate', () => {
  it('answers a valid query with its canonical text and the number of matching posts', async () => {
    const res = await validate(viewer, {
      workspace_id: workspaceId,
      query: 'coffee tea OR Platform:Instagram',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(z.safeParse(validateQueryResponseSchema, body).success).toBe(true);
    expect(body).toEqual({
      valid: true,
      normalized: 'coffee AND tea OR platform:instagram',
      matches: 4,
      matches_capped: false,
      // AND and OR mixed without brackets: read as the tree says, and said, with the brackets as the fix.
      warnings: [
        {
          code: 'mixed_and_or',
          message:
            'AND and OR are mixed without brackets at column 1: AND binds first, so this reads as ' +
            '(coffee tea) OR Platform:Instagram',
          column: 1,
          length: 32,
          fix: {
            label: 'Add the brackets',
            column: 1,
            length: 32,
            text: '(coffee tea) OR Platform:Instagram',
          },
        },
      ],
    });
    // A query that says what it means has none.
    expect(
      (await validate(viewer, { workspace_id: workspaceId, query: 'coffee tea' })).json(),
    ).not.toHaveProperty('warnings');
  });

  it('counts a long listening query: 300 terms over several lines with comments', async () => {
    const brands = Array.from({ length: 240 }, (_, i) => `brand${i}`);
    const misspellings = Array.from({ length: 40 }, (_, i) => `"cofee shop ${i}"`);
    const exclusions = Array.from({ length: 19 }, (_, i) => `spam${i}`);
    const query = [
      '<<< the brand and its products >>>',
      `(coffee OR ${brands.join(' OR ')}`,
      `OR ${misspellings.join(' OR ')})`,
      '<<< not the noise >>>',
      `NOT (${exclusions.join(' OR ')})`,
    ].join('\n');
    expect(query.length).toBeLessThanOrEqual(4096);
    const res = await validate(viewer, { workspace_id: workspaceId, query });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ valid: true, matches_capped: false });
    // The same posts as coffee alone: no post of the corpus has the other terms.
    const coffee = (await validate(viewer, { workspace_id: workspaceId, query: 'coffee' })).json();
    expect(body.matches).toBe(coffee.matches);
    expect(body.matches).toBeGreaterThan(0);
    expect(body.normalized).not.toContain('<<<');
  });

  it('answers the syntax while no store can count: matches null, and why', async () => {
    const service = server.app.deps.analytics;
    server.app.deps.analytics = undefined;
    try {
      const res = await validate(viewer, { workspace_id: workspaceId, query: 'coffee tea' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        valid: true,
        normalized: 'coffee AND tea',
        matches: null,
        matches_capped: false,
        matches_unavailable: {
          error: 'figures_unavailable',
          message: expect.stringMatching(/ANALYTICS_STORE=off/),
        },
      });
      const wrong = await validate(viewer, { workspace_id: workspaceId, query: 'coffee AND' });
      expect(wrong.json()).toMatchObject({ valid: false });
    } finally {
      server.app.deps.analytics = service;
    }
  });

  it('counts within filters and a date range when given, as discover searches', async () => {
    const count = async (filters: object) =>
      (await validate(viewer, { workspace_id: workspaceId, query: 'coffee', filters })).json();
    const range = { from: '2025-12-01T00:00:00Z', to: '2026-02-01T00:00:00Z' };
    const all = await count(range);
    expect(all).toMatchObject({ valid: true, matches_capped: false });
    const onX = await count({ ...range, platforms: ['x'] });
    expect(onX.matches).toBeGreaterThan(0);
    expect(onX.matches).toBeLessThan(all.matches);
    expect(await count({ from: '2026-02-01T00:00:00Z', to: '2026-03-01T00:00:00Z' })).toMatchObject({
      matches: 0,
    });
    const unscoped = await validate(viewer, { workspace_id: workspaceId, query: 'coffee' });
    expect(unscoped.json().matches).toBe(all.matches);
    const backwards = await validate(viewer, {
      workspace_id: workspaceId,
      query: 'coffee',
      filters: { from: range.to, to: range.from },
    });
    expect(backwards.statusCode).toBe(400);
  });

  it('counts zero matches', async () => {
    const res = await validate(viewer, { workspace_id: workspaceId, query: '"no such phrase"' });
    expect(res.json()).toEqual({
      valid: true,
      normalized: '"no such phrase"',
      matches: 0,
      matches_capped: false,
    });
  });

  it('answers an invalid query with 200 and its errors, each with a column', async () => {
    for (const [query, error] of [
      ['(coffee OR tea))', { message: 'Unexpected ")" at column 16', column: 16, length: 1 }],
      [
        'a "flat',
        { message: 'Missing closing quote for the phrase that starts at column 3', column: 3, length: 5 },
      ],
      [
        'platform:myspace',
        {
          message:
            'Invalid platform "myspace" at column 10 (one of x, instagram, tiktok, youtube, facebook, reddit, mastodon, bluesky, rss, hackernews)',
          column: 10,
          length: 7,
        },
      ],
      ['', { message: 'The query is empty', column: 1, length: 0 }],
      ["'; DROP TABLE posts; --", expect.objectContaining({ column: 1, length: 2 })],
      ['x'.repeat(5000), expect.objectContaining({ column: 4097, length: 904 })],
    ] as const) {
      const res = await validate(viewer, { workspace_id: workspaceId, query });
      expect(res.statusCode).toBe(200);
      expect(z.safeParse(validateQueryResponseSchema, res.json()).success).toBe(true);
      expect(res.json()).toEqual({ valid: false, errors: [error] });
    }
  });

  it('refuses a malformed body with 400', async () => {
    for (const payload of [
      { workspace_id: workspaceId },
      { workspace_id: workspaceId, query: 3 },
      { query: 'a' },
    ]) {
      const res = await validate(viewer, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request' });
    }
  });

  it('requires sign-in, before looking at the body', async () => {
    const res = await validate(null, { workspace_id: workspaceId, query: 'coffee' });
    expect(res.statusCode).toBe(401);
    expect((await validate(null, {})).statusCode).toBe(401);
  });

  it('answers 404 to someone outside the workspace, and for a workspace that does not exist', async () => {
    const res = await validate(outsider, { workspace_id: workspaceId, query: 'coffee' });
    expect(res.statusCode).toBe(404);
    const missing = await validate(viewer, { workspace_id: 'no-such-workspace', query: 'coffee' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual(res.json());
  });

  it('is in the OpenAPI document, with both answers', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    const operation = doc.paths['/social/query/validate'].post;
    expect(operation.security).toEqual([{ bearer: [] }]);
    expect(JSON.stringify(operation.responses['200'])).toContain('matches_capped');
    expect(JSON.stringify(operation.responses['200'])).toContain('errors');
  });

  it('limits how often one account may call it', async () => {
    const typist = await server.createUser();
    const team = await createWorkspace(server, [[typist, 'viewer']]);
    const payload = { workspace_id: team.id, query: 'NOT' };
    const statuses: number[] = [];
    for (let i = 0; i <= VALIDATE_PER_MINUTE; i += 1)
      statuses.push((await validate(typist, payload)).statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(VALIDATE_PER_MINUTE);
    expect(statuses.at(-1)).toBe(429);
    const limited = await validate(typist, payload);
    expect(limited.json()).toMatchObject({ error: 'rate_limited' });
    // Per account: someone else is not affected.
    expect((await validate(viewer, { workspace_id: workspaceId, query: 'a' })).statusCode).toBe(200);
  });
});
