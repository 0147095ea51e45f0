// The conversation dashboard leaves out each post's stop words by the post's own language: a Spanish post's
// "puedo", "lleva", "tarde" and "horas" are not words of the conversation, while "son" (a Spanish stop word, an English
// noun) still counts in English posts. Posts of unknown language lose the stop words of every language.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationResponse } from '@contract/insights-responses';
import { insertPosts, insertProfiles } from '@server/social/corpus/changes';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';

const HOUR = 3_600_000;
let server: TestServer;
let viewer: Person;
let workspaceId: string;

beforeAll(async () => {
  server = await createTestServer();
  viewer = await server.createUser();
  workspaceId = (await createWorkspace(server, [[viewer, 'viewer']])).id;
  const [author] = (
    await insertProfiles(server.db, [
      { platform: 'x', externalId: 'stop-1', handle: 'lucia', displayName: 'Lucía', followers: 10 },
    ])
  ).map((id) => ({ id }));
  const texts: Array<[string | null, string]> = [
    ...Array.from({ length: 6 }, (): [string, string] => [
      'es',
      'No puedo más, lleva horas caída la cafetera y llegamos tarde, son las diez',
    ]),
    ...Array.from({ length: 6 }, (): [string, string] => ['en', 'My son spilled the coffee again']),
    ...Array.from({ length: 6 }, (): [null, string] => [null, 'puedo the outage']),
  ];
  await insertPosts(
    server.db,
    texts.map(([language, text], i) => ({
      platform: 'x' as const,
      externalId: `stop-post-${i}`,
      authorId: author!.id,
      text,
      language,
      postedAt: new Date(Date.now() - (i + 2) * HOUR),
    })),
  );
});
afterAll(() => server.close());

describe('stop words per language', () => {
  it("leave out each post's own language's stop words from the words and the emerging words", async () => {
    const res = await as(server, viewer, {
      method: 'POST',
      url: '/social/insights/conversation',
      payload: {
        workspace_id: workspaceId,
        query: '',
        filters: { from: new Date(Date.now() - 3 * 24 * HOUR).toISOString(), to: new Date().toISOString() },
        limit: 50,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<ConversationResponse>();
    const terms = new Map(body.terms.map((term) => [term.value, term.posts]));
    for (const stop of ['puedo', 'lleva', 'tarde', 'horas', 'the', 'again', 'las']) {
      expect(terms.has(stop), stop).toBe(false);
    }
    expect(terms.get('cafetera')).toBe(6);
    expect(terms.get('coffee')).toBe(6);
    // "son" counted in the English posts only.
    expect(terms.get('son')).toBe(6);
    expect(terms.get('outage')).toBe(6);
    const emerging = body.emerging.map((word) => word.value);
    expect(emerging).toEqual(expect.arrayContaining(['cafetera', 'coffee', 'son', 'outage']));
    for (const stop of ['puedo', 'lleva', 'tarde', 'horas']) expect(emerging).not.toContain(stop);
  });
});
