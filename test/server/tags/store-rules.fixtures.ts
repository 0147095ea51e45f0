// What the tests of a rule's past matches from the analytics store start from: a generated corpus, a store of the
// test's own that the routes read (the harness's is off: one store a database), and a team whose workspace has the
// category Topic and its tag Coffee.
import { expect } from 'vitest';
import type { TagCategoryResponse, TagResponse } from '@contract/tags';
import type { AnalyticsServiceOptions } from '@server/analytics/service';
import { tagRules } from '@server/db/tags-schema';
import { writeCorpus, type GeneratedPost } from '@test/support/reference/corpus';
import { createTestServer } from '@test/support/server-harness';
import { as, createTeam } from '@test/support/workspaces.fixtures';
import { runningService } from '../analytics/dashboards.fixtures';

export async function coffeeWithStore(
  corpus: GeneratedPost[],
  name: string,
  options: Partial<AnalyticsServiceOptions> = {},
) {
  const server = await createTestServer({}, { store: false });
  await writeCorpus(server, corpus);
  const running = await runningService(server, name, options);
  server.app.deps.analytics = running.service;
  const team = await createTeam(server);
  const base = `/api/workspaces/${team.workspaceId}`;
  /** POSTs as the manager under the workspace's path; the 201's body. */
  const created = async <T>(url: string, payload: object): Promise<T> => {
    const res = await as(server, team.manager, { method: 'POST', url: `${base}${url}`, payload });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<T>();
  };
  const topic = await created<TagCategoryResponse>('/tag-categories', { name: 'Topic' });
  const coffee = await created<TagResponse>(`/tag-categories/${topic.id}/tags`, { name: 'Coffee' });
  /** A rule of the Coffee tag written directly (no route applies it): cursor 0, as a rule created or changed. */
  const newRule = async (query: string): Promise<string> => {
    const [row] = await server.db
      .insert(tagRules)
      .values({ workspaceId: team.workspaceId, tagId: coffee.id, query })
      .returning({ id: tagRules.id });
    return row!.id;
  };
  return { server, running, team, base, coffee, created, newRule };
}
