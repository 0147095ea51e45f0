// Compare's tags mode held to the overview (compare.ts, overview.ts) and to the reference evaluator
// (test/support/reference/lists.ts): on a generated corpus written through the change path, its posts tagged by hand
// and by a rule, and fed to a running store, for generated scopes (a saved query of every operator with its platforms
// and languages, or every post with those as filters; a zone, a range and refinements) and two or three of the
// workspace's tags, every column's figures equal what the scope's overview gives with its refinements and that tag,
// and the overlap is the reference's.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compare, resolveCompare } from '@server/social/insights/compare';
import { overview } from '@server/social/insights/overview';
import { resolveInsightScope } from '@server/social/insights/request';
import { generatedCorpus, REF_TAGS, writeCorpus } from '@test/support/reference/corpus';
import { overlapOf } from '@test/support/reference/lists';
import type { RefPost } from '@test/support/reference/query';
import { caseArb, scopesOf } from '@test/support/reference/scopes';
import { savedQueries } from '@server/db/social-schema';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { runningService } from '../analytics/dashboards.fixtures';

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let posts: RefPost[];

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  posts = await writeCorpus(server, generatedCorpus(5290, 300));
  running = await runningService(server, 'compare-tags-property');
}, 120_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

const NO_HISTORY = { start: null, historyDays: null, planName: '' };
let saved = 0;

/** A saved query of the reference workspace (each its own name), with its platforms and languages. */
async function insertSavedQuery(query: string, filters: { platforms: string[]; languages: string[] }) {
  saved += 1;
  const [row] = await server.db
    .insert(savedQueries)
    .values({ workspaceId: 'w', name: `Generated ${saved}`, query, filters })
    .returning({ id: savedQueries.id });
  return row!.id;
}

describe("Compare's tags mode", () => {
  it("gives each tag its saved query's overview refined to it, and the reference's overlap", async () => {
    let counted = 0;
    const tagsArb = fc.shuffledSubarray(Object.values(REF_TAGS), { minLength: 2, maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(caseArb(posts), tagsArb, async (c, tags) => {
        // No corrections: the workspace has none stored, and Compare reads the stored ones.
        const scopeCase = { ...c, corrected: false };
        const workspace = { timeZone: c.zone };
        // A saved query keeping its platforms and languages; without a query, every post, the filters given.
        const savedQueryId =
          c.query === null
            ? null
            : await insertSavedQuery(c.query, { platforms: c.platforms, languages: c.languages });
        const filters = {
          from: new Date(c.range[0]).toISOString(),
          to: new Date(c.range[1]).toISOString(),
          ...(savedQueryId === null && { platforms: c.platforms as never, languages: c.languages }),
        };
        const scope = savedQueryId === null ? { query: '' } : { saved_query_id: savedQueryId };
        const contexts = await resolveCompare(
          server.db,
          workspace,
          {
            workspace_id: 'w',
            ...(savedQueryId && { saved_query_id: savedQueryId }),
            tag_ids: tags,
            filters,
            refine: c.refine,
          },
          NO_HISTORY,
        );
        const answer = await compare(server.db, contexts, running.service);
        expect(answer.mode).toBe('tags');

        const total = answer.queries.reduce((sum, q) => sum + q.mentions.value, 0);
        for (const [i, tag] of tags.entries()) {
          const refine = [...c.refine, { field: 'tag' as const, values: [tag] }];
          const context = await resolveInsightScope(server.db, workspace, {
            workspace_id: 'w',
            ...scope,
            filters,
            refine,
          });
          const own = await overview(server.db, context, running.service);
          const column = answer.queries[i]!;
          expect({ scope: c.query, tag, column }).toEqual({
            scope: c.query,
            tag,
            column: {
              saved_query_id: savedQueryId,
              tag_id: tag,
              name: column.name,
              query: own.query,
              mentions: own.totals.mentions,
              share: total ? own.totals.mentions.value / total : 0,
              sentiment: own.sentiment,
              platforms: own.platforms.map(({ platform, mentions }) => ({ platform, mentions })),
              top_authors: own.top_people.slice(0, 5),
            },
          });
          expect(answer.over_time.map((b) => [b.start, b.mentions[i]])).toEqual(
            own.over_time.map((b) => [b.start, b.mentions]),
          );
          expect([answer.range, answer.previous_range, answer.bucket]).toEqual([
            own.range,
            own.previous_range,
            own.bucket,
          ]);
          if (own.totals.mentions.value > 0) counted += 1;
        }

        const scopes = await Promise.all(
          tags.map((tag) =>
            scopesOf(
              server,
              { ...scopeCase, refine: [...c.refine, { field: 'tag', values: [tag] }] },
              new Map(),
            ),
          ),
        );
        const expected = overlapOf(
          posts,
          scopes.map((s) => s.scope),
        );
        const pairs = tags.flatMap((_, a) => tags.slice(a + 1).map((__, k) => ({ a, b: a + k + 1 })));
        expect(answer.overlap).toEqual({
          posts: expected.posts,
          pairs: pairs.map((pair, p) => ({ ...pair, posts: expected.pairs[p] })),
        });
      }),
      { seed: 5291, numRuns: 25, endOnFailure: true },
    );
    // Not vacuous: many columns count posts.
    expect(counted).toBeGreaterThan(10);
  }, 240_000);
});
