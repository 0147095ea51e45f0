// Sentiment corrections: who may set and undo them; a correction changes the analytics store's overview sentiment
// split by exactly one post in its workspace and in no other (every post's split also counted row by row in
// PostgreSQL), in a sentiment refinement's membership and in averages; undo restores every figure; the dashboards'
// answer cache does not serve an answer from before it; the post shows who corrected it; and it survives a re-import
// of the post and a store rebuilt from PostgreSQL. The store's figures on every scope are held to the reference
// evaluator in test/server/insights/overview.property.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Refine } from '@contract/insights';
import type { OverviewResponse, PostsResponse } from '@contract/insights-responses';
import {
  SENTIMENT_CORRECTIONS_LIMIT,
  type SentimentCorrectionResponse,
} from '@contract/sentiment-corrections';
import type { AnalyticsService } from '@server/analytics/service';
import { importCorpus } from '@server/social/corpus/import/run';
import { explainSentiment } from '@server/social/corpus/sentiment-explain';
import { overview } from '@server/social/insights/overview';
import { performance } from '@server/social/insights/performance';
import { resolveInsightScope } from '@server/social/insights/request';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, createWorkspace, type Team } from '@test/support/workspaces.fixtures';
import { generatedCorpus, rounded, runningService } from '../analytics/dashboards.fixtures';

let server: TestServer;
let team: Team;
/** Another workspace of the same owner: it must not see the team's corrections. */
let other: string;
let running: Awaited<ReturnType<typeof runningService>>;
let service: AnalyticsService;
/** The corrected post: estimated positive, in RANGE, with a hashtag. */
let target: { id: number; sentiment: number; hashtag: string; platform: string; external_id: string };

const RANGE = { from: '2026-09-01T00:00:00Z', to: '2026-11-15T00:00:00Z' };

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  team = await createTeam(server);
  other = (await createWorkspace(server, [[team.owner, 'owner']])).id;
  await generatedCorpus(server, 37);
  const { rows } = await server.pool.query<{
    id: string;
    sentiment: number;
    hashtag: string;
    platform: string;
    external_id: string;
  }>(
    `SELECT id::text, sentiment, hashtags[1] AS hashtag, platform::text, external_id
      FROM posts p WHERE posted_at >= $1 AND posted_at < $2 AND sentiment_label = 'positive'
        AND cardinality(hashtags) > 0
        -- A post with no near-duplicate (sentiment-near-duplicates.test.ts has those): the correction is its alone.
        AND text_key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM posts q WHERE q.text_key = p.text_key AND q.id <> p.id)
      ORDER BY id LIMIT 1`,
    [RANGE.from, RANGE.to],
  );
  target = { ...rows[0]!, id: Number(rows[0]!.id) };
  await startStore('corrections-');
}, 240_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

/**
 * A store of the test's own, read as the test server reads its own (each write applied at once, reads waiting for
 * it), which the routes read too: the rebuild below starts a second one from nothing.
 */
async function startStore(name: string) {
  running = await runningService(server, name, { coalesceMs: 0, readWaitMs: 30_000 });
  service = running.service;
  server.app.deps.analytics = service;
}

const sentimentPath = (workspace: string, postId: number | string) =>
  `/api/workspaces/${workspace}/posts/${postId}/sentiment`;

async function correct(workspace: string, label: string, person = team.owner) {
  const res = await as(server, person, {
    method: 'PUT',
    url: sentimentPath(workspace, target.id),
    payload: { label },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<SentimentCorrectionResponse>();
}

async function undo(workspace: string) {
  const res = await as(server, team.manager, { method: 'DELETE', url: sentimentPath(workspace, target.id) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<SentimentCorrectionResponse>();
}

interface Case {
  name: string;
  query: () => string;
  refine?: Refine[];
  zone: string;
}
const CASES: Case[] = [
  { name: 'every post', query: () => '', zone: 'UTC' },
  { name: 'a hashtag', query: () => `#${target.hashtag}`, zone: 'America/New_York' },
  {
    name: 'refined to negative posts',
    query: () => '',
    zone: 'UTC',
    refine: [{ field: 'sentiment', values: ['negative'] }],
  },
  {
    name: 'refined to all but positive posts',
    query: () => `#${target.hashtag}`,
    zone: 'Asia/Kolkata',
    refine: [{ field: 'sentiment', values: ['positive'], exclude: true }],
  },
];

const contextOf = (workspace: string, c: Case) =>
  resolveInsightScope(
    server.db,
    { timeZone: c.zone },
    { workspace_id: workspace, query: c.query(), filters: RANGE, refine: c.refine ?? [] },
  );

/**
 * The every-post scope's split and sum of sentiment counted row by row from PostgreSQL's posts, with the workspace's
 * corrections (1, 0, -1): the rated posts' (a corrected one is rated; one without a rating counts as rated), the
 * not-rated apart. Summed as float8: a sum of real is a real, too coarse for six decimals.
 */
async function countedSplit(workspace: string) {
  const { rows } = await server.pool.query<{ sum: number } & ReturnType<typeof split>>(
    `SELECT count(*) FILTER (WHERE l = 'positive' AND r)::int AS positive,
        count(*) FILTER (WHERE l = 'neutral' AND r)::int AS neutral,
        count(*) FILTER (WHERE l = 'negative' AND r)::int AS negative,
        count(*) FILTER (WHERE NOT r)::int AS not_rated, count(*)::int AS mentions, sum(s) FILTER (WHERE r) AS sum
      FROM (SELECT coalesce(c.label, p.sentiment_label) AS l,
          c.label IS NOT NULL OR p.sentiment_rated IS NOT FALSE AS r,
          (CASE c.label WHEN 'positive' THEN 1 WHEN 'neutral' THEN 0 WHEN 'negative' THEN -1
            ELSE p.sentiment END)::float8 AS s
        FROM posts p LEFT JOIN sentiment_corrections c ON c.post_id = p.id AND c.workspace_id = $3
        WHERE p.posted_at >= $1 AND p.posted_at < $2) counted`,
    [RANGE.from, RANGE.to, workspace],
  );
  const { sum, ...counts } = rows[0]!;
  return { split: counts, sum };
}

/** The store's overview; on the every-post scope, its split and average as counted row by row. */
async function overviews(workspace: string, c: Case) {
  const answer = await overview(server.db, await contextOf(workspace, c), service);
  if (c === CASES[0]) {
    const counted = await countedSplit(workspace);
    expect(split(answer)).toEqual(counted.split);
    expect(sentimentSum(answer)).toBeCloseTo(counted.sum, 6);
  }
  return answer;
}

const performances = async (workspace: string, c: Case) =>
  performance(server.db, await contextOf(workspace, c), service);

/** Once the store has applied PostgreSQL's corpus version as it is now. */
async function storeCaughtUp() {
  const { rows } = await server.pool.query<{ v: string }>('SELECT version AS v FROM corpus_state');
  const version = Number(rows[0]!.v);
  for (;;) {
    const { caughtUp, corpusVersion } = service.state();
    if (caughtUp && corpusVersion !== null && corpusVersion >= version) return;
    if ((await service.caughtUpOnce()).corpusVersion >= version) return;
  }
}

const split = (o: OverviewResponse) => ({
  positive: o.sentiment.positive,
  neutral: o.sentiment.neutral,
  negative: o.sentiment.negative,
  not_rated: o.sentiment.not_rated,
  mentions: o.totals.mentions.value,
});
/** The rated posts: what the averages are over ("not rated" posts are counted apart). */
const ratedOf = (o: OverviewResponse) => o.sentiment.positive + o.sentiment.neutral + o.sentiment.negative;
/** The sum of the range's rated posts' sentiment scores: the average times the rated posts. */
const sentimentSum = (o: OverviewResponse) => (o.sentiment.average ?? 0) * ratedOf(o);

describe('who may correct', () => {
  it('owners and managers may; viewers are refused; a missing post is a 404; bad input a 400', async () => {
    const viewer = await as(server, team.viewer, {
      method: 'PUT',
      url: sentimentPath(team.workspaceId, target.id),
      payload: { label: 'negative' },
    });
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json().message).toBe("Only owners and managers can correct a post's sentiment.");
    const viewerUndo = await as(server, team.viewer, {
      method: 'DELETE',
      url: sentimentPath(team.workspaceId, target.id),
    });
    expect(viewerUndo.statusCode).toBe(403);
    const outsider = await as(server, team.outsider, {
      method: 'PUT',
      url: sentimentPath(team.workspaceId, target.id),
      payload: { label: 'negative' },
    });
    expect(outsider.statusCode).toBe(404);
    const missing = await as(server, team.owner, {
      method: 'PUT',
      url: sentimentPath(team.workspaceId, 999_999_999),
      payload: { label: 'negative' },
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe('post_not_found');
    for (const [postId, payload] of [
      [target.id, { label: 'angry' }],
      [target.id, {}],
      ['abc', { label: 'negative' }],
      [-4, { label: 'negative' }],
    ] as const) {
      const bad = await as(server, team.owner, {
        method: 'PUT',
        url: sentimentPath(team.workspaceId, postId),
        payload,
      });
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
    }
    const signedOut = await as(server, null, {
      method: 'PUT',
      url: sentimentPath(team.workspaceId, target.id),
      payload: { label: 'negative' },
    });
    expect(signedOut.statusCode).toBe(401);
    // Nothing was stored by any of them.
    const { rows } = await server.pool.query('SELECT * FROM sentiment_corrections');
    expect(rows).toEqual([]);
  });
});

describe('the limit', () => {
  it(`keeps at most ${SENTIMENT_CORRECTIONS_LIMIT} corrections a workspace; one already made can still change`, async () => {
    const full = (await createWorkspace(server, [[team.owner, 'owner']])).id;
    // The limit's worth of corrections, the last of them the target's.
    await server.pool.query(
      `INSERT INTO sentiment_corrections (workspace_id, post_id, label)
        SELECT $1, 1000000000 + n, 'neutral' FROM generate_series(1, $2::int - 1) n`,
      [full, SENTIMENT_CORRECTIONS_LIMIT],
    );
    await correct(full, 'neutral');
    const { rows } = await server.pool.query<{ id: string }>(
      'SELECT id::text FROM posts WHERE id <> $1 ORDER BY id LIMIT 1',
      [target.id],
    );
    const refused = await as(server, team.owner, {
      method: 'PUT',
      url: sentimentPath(full, rows[0]!.id),
      payload: { label: 'negative' },
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toBe('correction_limit');
    expect((await correct(full, 'negative')).label).toBe('negative');
  });
});

describe('a correction in every figure of its workspace, and of no other', () => {
  it.each(CASES)('changes the overview by exactly one post, until undone: $name', async (c) => {
    const before = await overviews(team.workspaceId, c);
    const otherBefore = await overviews(other, c);
    const made = await correct(team.workspaceId, 'negative', team.manager);
    expect(made).toMatchObject({ post_id: target.id, label: 'negative', estimated_label: 'positive' });
    expect(made.corrected_by).toBe(team.manager.email);
    try {
      const after = await overviews(team.workspaceId, c);
      const b = split(before);
      if (c.refine) {
        // Refined to negative posts, or to all but positive ones, the post is now counted: one more mention.
        expect(split(after)).toEqual({ ...b, negative: b.negative + 1, mentions: b.mentions + 1 });
      } else {
        expect(split(after)).toEqual({ ...b, positive: b.positive - 1, negative: b.negative + 1 });
        // In averages it counts -1 instead of its estimate.
        expect(sentimentSum(after)).toBeCloseTo(sentimentSum(before) - 1 - target.sentiment, 6);
      }
      expect(after.counted).toContain(
        'sentiment as corrected in this workspace for the post someone corrected',
      );
      expect(before.counted).not.toContain('corrected');
      // Another workspace still counts the estimate.
      expect(await overviews(other, c)).toEqual(otherBefore);
    } finally {
      const undone = await undo(team.workspaceId);
      expect(undone).toMatchObject({ label: 'positive', corrected_by: null, corrected_at: null });
    }
    expect(await overviews(team.workspaceId, c)).toEqual(before);
  });

  it('counts in performance’s averages', async () => {
    const c = CASES[0]!;
    const before = await performances(team.workspaceId, c);
    // The average is over the rated posts; the target is rated (positive), and stays so corrected.
    const rated = ratedOf(await overviews(team.workspaceId, c));
    await correct(team.workspaceId, 'neutral');
    try {
      const after = await performances(team.workspaceId, c);
      expect(after.totals.posts).toBe(before.totals.posts);
      expect(after.totals.average_sentiment! * rated).toBeCloseTo(
        before.totals.average_sentiment! * rated - target.sentiment,
        6,
      );
    } finally {
      await undo(team.workspaceId);
    }
    expect(await performances(team.workspaceId, c)).toEqual(before);
  });
});

describe('through the routes', () => {
  const post = (workspace: string, url: string, body: Record<string, unknown> = {}) =>
    as(server, team.owner, {
      method: 'POST',
      url: `/social/insights/${url}`,
      payload: { workspace_id: workspace, query: `#${target.hashtag}`, filters: RANGE, ...body },
    });

  it('answers from after the correction (not the cached answer), and the post shows who corrected it', async () => {
    const first = (await post(team.workspaceId, 'overview')).json<OverviewResponse>();
    await correct(team.workspaceId, 'negative');
    try {
      const second = (await post(team.workspaceId, 'overview')).json<OverviewResponse>();
      expect(second.sentiment.negative).toBe(first.sentiment.negative + 1);
      const list = await post(team.workspaceId, 'posts', { sort: 'recency', limit: 100 });
      const shown = list.json<PostsResponse>().posts.find((p) => p.id === target.id)!;
      expect(shown.sentiment_label).toBe('negative');
      expect(shown.sentiment).toBe(-1);
      expect(shown.sentiment_correction).toMatchObject({
        estimated_label: 'positive',
        estimated_sentiment: target.sentiment,
        corrected_by: team.owner.email,
      });
      expect(Date.parse(shown.sentiment_correction!.corrected_at)).toBeGreaterThan(Date.now() - 60_000);
      // The correction, not the model's reasons: no explanation of the estimate.
      expect(shown.sentiment_explanation).toBeUndefined();
      // Refined to negative posts, the list has it.
      const negatives = await post(team.workspaceId, 'posts', {
        sort: 'recency',
        limit: 100,
        refine: [{ field: 'sentiment', values: ['negative'] }],
      });
      expect(negatives.json<PostsResponse>().posts.map((p) => p.id)).toContain(target.id);
      // The post's own page says so too; another workspace's lists show the estimate.
      const detail = await as(server, team.viewer, {
        method: 'POST',
        url: '/social/posts/detail',
        payload: { workspace_id: team.workspaceId, post_id: target.id },
      });
      expect(detail.json().post.sentiment_correction.corrected_by).toBe(team.owner.email);
      expect(detail.json().post.sentiment_explanation).toBeUndefined();
      const elsewhere = await post(other, 'posts', { sort: 'recency', limit: 100 });
      const there = elsewhere.json<PostsResponse>().posts.find((p) => p.id === target.id)!;
      expect(there.sentiment_label).toBe('positive');
      expect(there.sentiment_correction).toBeNull();
      // Elsewhere the estimate is explained: positive, the words that pushed it there.
      const { label, ...explained } = explainSentiment(there.text, there.language, 'positive');
      expect(label).toBe('positive');
      expect(there.sentiment_explanation).toEqual(explained);
      expect(explained.rated).toBe(true);
      expect(explained.signals.length).toBeGreaterThan(0);
    } finally {
      await undo(team.workspaceId);
    }
    expect((await post(team.workspaceId, 'overview')).json<OverviewResponse>()).toEqual(first);
  });
});

describe('what a correction survives', () => {
  it('a re-import of the post that changes its estimate, and a store rebuilt from PostgreSQL', async () => {
    const c = CASES[1]!;
    await correct(team.workspaceId, 'negative');
    // The post again, with words the lexicon reads as positive: its estimate is replaced, its correction is not.
    const dir = mkdtempSync(join(tmpdir(), 'murmur-reimport-'));
    try {
      const { rows } = await server.pool.query(
        `SELECT p.text, to_char(p.posted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS posted_at,
          a.external_id AS author_external_id, a.handle
        FROM posts p JOIN profiles a ON a.id = p.author_id WHERE p.id = $1`,
        [target.id],
      );
      const stored = rows[0]!;
      const file = join(dir, 'again.ndjson');
      writeFileSync(
        file,
        `${JSON.stringify({
          platform: target.platform,
          external_id: target.external_id,
          author_external_id: stored.author_external_id,
          author_handle: stored.handle,
          text: `${stored.text} love it, wonderful, great`,
          posted_at: stored.posted_at,
          hashtags: [target.hashtag],
        })}\n`,
      );
      const summary = await importCorpus(server.pool, file);
      expect(summary).toMatchObject({ updated: 1, rejected: 0 });
      const { rows: kept } = await server.pool.query('SELECT id::int FROM posts WHERE id = $1', [target.id]);
      expect(kept).toHaveLength(1);
      await storeCaughtUp();
      const afterImport = await overviews(team.workspaceId, c);
      const context = await contextOf(team.workspaceId, c);
      expect(context.corrections.byId.get(target.id)?.label).toBe('negative');
      // A store rebuilt from nothing (one service holds a database's store at a time: the first one stops).
      await running.close();
      await startStore('corrections-rebuilt-');
      const fromRebuilt = await overview(server.db, context, service);
      expect(rounded(fromRebuilt)).toEqual(rounded(afterImport));
      await undo(team.workspaceId);
      const undone = await overviews(team.workspaceId, c);
      expect(undone.sentiment.negative).toBe(afterImport.sentiment.negative - 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
