// Near-duplicates inherit a workspace's sentiment correction (issue 53, item 6): a post with the same text as a
// corrected one (other case, links, mentions, punctuation, spacing; a repost) counts with the correction in the
// analytics store's sentiment split of that workspace and of no other, a near-duplicate imported later follows at
// once, an explicit correction of the near-duplicate wins over the inherited one, and undoing the correction takes
// back what it gave. The post lists say which post the correction came from.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OverviewResponse, PostsResponse } from '@contract/insights-responses';
import type {
  SentimentAgreementResponse,
  SentimentCorrectionResponse,
} from '@contract/sentiment-corrections';
import type { SocialPost } from '@contract/social-posts';
import { importCorpus } from '@server/social/corpus/import/run';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, createWorkspace, type Team } from '@test/support/workspaces.fixtures';
import { runningService } from '../analytics/dashboards.fixtures';

let server: TestServer;
let team: Team;
/** Another workspace of the same owner: it must see nothing of the team's corrections. */
let other: string;
let running: Awaited<ReturnType<typeof runningService>>;
let dir: string;

const TAG = 'parcelwoes53';
const FILTERS = { from: '2026-11-01T00:00:00Z', to: '2026-11-20T00:00:00Z' };
const ORIGINAL = `Parcel arrived two weeks LATE, thanks a lot https://t.co/abc123 @shipco #${TAG}`;
const TEXTS = {
  original: ORIGINAL,
  // Other case, link, mention, punctuation and spacing: the same text.
  copy: `parcel arrived two weeks late... thanks a lot!!  https://example.com/x?y=1 @someoneelse #${TAG.toUpperCase()}`,
  repost: ORIGINAL,
  unrelated: `The parcel came early and the courier was lovely #${TAG}`,
  later: `Parcel arrived two weeks late — thanks a lot. #${TAG} www.example.org/track`,
};
type Name = keyof typeof TEXTS;
const ids = {} as Record<Name, number>;
const estimates = {} as Record<Name, SocialPost['sentiment_label']>;

let imported = 0;
async function importPosts(names: Name[]) {
  const file = join(dir, `posts-${(imported += 1)}.ndjson`);
  writeFileSync(
    file,
    names
      .map((name, i) =>
        JSON.stringify({
          platform: 'x',
          external_id: `near-dup-${name}`,
          author_external_id: `author-${name}`,
          author_handle: `author_${name}`,
          text: TEXTS[name],
          language: 'en',
          posted_at: `2026-11-1${i}T10:00:00Z`,
          kind: name === 'repost' ? 'repost' : 'original',
          hashtags: [TAG],
        }),
      )
      .join('\n') + '\n',
  );
  expect(await importCorpus(server.pool, file)).toMatchObject({ rejected: 0 });
  const { rows } = await server.pool.query<{
    id: string;
    external_id: string;
    label: SocialPost['sentiment_label'];
  }>(`SELECT id::text, external_id, sentiment_label AS label FROM posts WHERE external_id = ANY($1)`, [
    names.map((name) => `near-dup-${name}`),
  ]);
  for (const row of rows) {
    const name = row.external_id.replace('near-dup-', '') as Name;
    ids[name] = Number(row.id);
    estimates[name] = row.label;
  }
  await storeCaughtUp();
}

/** Once the store has applied PostgreSQL's corpus version as it is now. */
async function storeCaughtUp() {
  const { rows } = await server.pool.query<{ v: string }>('SELECT version AS v FROM corpus_state');
  const version = Number(rows[0]!.v);
  const { service } = running;
  for (;;) {
    const { caughtUp, corpusVersion } = service.state();
    if (caughtUp && corpusVersion !== null && corpusVersion >= version) return;
    if ((await service.caughtUpOnce()).corpusVersion >= version) return;
  }
}

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  team = await createTeam(server);
  other = (await createWorkspace(server, [[team.owner, 'owner']])).id;
  dir = mkdtempSync(join(tmpdir(), 'murmur-near-dup-'));
  running = await runningService(server, 'near-dup-', { coalesceMs: 0, readWaitMs: 30_000 });
  server.app.deps.analytics = running.service;
  await importPosts(['original', 'copy', 'repost', 'unrelated']);
}, 240_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const sentimentPath = (workspace: string, postId: number) =>
  `/api/workspaces/${workspace}/posts/${postId}/sentiment`;

async function correct(workspace: string, postId: number, label: SocialPost['sentiment_label'] | null) {
  const res = await as(server, team.owner, {
    method: label ? 'PUT' : 'DELETE',
    url: sentimentPath(workspace, postId),
    ...(label && { payload: { label } }),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<SentimentCorrectionResponse>();
}

const insights = (workspace: string, url: string, body: Record<string, unknown> = {}) =>
  as(server, team.owner, {
    method: 'POST',
    url: `/social/insights/${url}`,
    payload: { workspace_id: workspace, query: `#${TAG}`, filters: FILTERS, ...body },
  });

async function split(workspace: string) {
  const answer = (await insights(workspace, 'overview')).json<OverviewResponse>();
  const { positive, neutral, negative } = answer.sentiment;
  return { positive, neutral, negative, counted: answer.counted };
}

/** The split the labels give: the estimate of each post but those `labels` names. */
function expected(names: Name[], labels: Partial<Record<Name, SocialPost['sentiment_label']>>) {
  const counts = { positive: 0, neutral: 0, negative: 0 };
  for (const name of names) counts[labels[name] ?? estimates[name]] += 1;
  return counts;
}

async function listed(workspace: string) {
  const res = await insights(workspace, 'posts', { sort: 'recency', limit: 100 });
  expect(res.statusCode, res.body).toBe(200);
  return new Map(res.json<PostsResponse>().posts.map((post) => [post.id, post]));
}

/** A label the posts named are not estimated with, so that inheriting it changes the split. */
function labelOtherThan(...names: Name[]): SocialPost['sentiment_label'] {
  return (['negative', 'neutral', 'positive'] as const).find((l) => names.every((n) => estimates[n] !== l))!;
}

describe('near-duplicates of a corrected post', () => {
  it('have the same text key; a text of links and mentions alone has none', async () => {
    const { rows } = await server.pool.query<{ name: string; key: string | null }>(
      `SELECT replace(external_id, 'near-dup-', '') AS name, text_key::text AS key FROM posts
        WHERE external_id LIKE 'near-dup-%'`,
    );
    const keys = new Map(rows.map((row) => [row.name, row.key]));
    expect(keys.get('copy')).toBe(keys.get('original'));
    expect(keys.get('repost')).toBe(keys.get('original'));
    expect(keys.get('unrelated')).not.toBe(keys.get('original'));
    expect(keys.get('original')).toMatch(/^[0-9a-f-]{36}$/);
    const { rows: bare } = await server.pool.query<{ key: string | null; same: boolean }>(
      `SELECT post_text_key('https://a.example/x @someone') AS key,
        post_text_key('ÉTÉ, génial!') = post_text_key('été génial') AS same`,
    );
    expect(bare[0]).toEqual({ key: null, same: true });
  });

  it('count as corrected in one workspace, past and later ones; an explicit one wins; undo takes it back', async () => {
    const names: Name[] = ['original', 'copy', 'repost', 'unrelated'];
    const label = labelOtherThan('copy', 'repost', 'original');
    const before = await split(team.workspaceId);
    const otherBefore = await split(other);
    expect(before).toMatchObject(expected(names, {}));

    await correct(team.workspaceId, ids.original, label);
    const after = await split(team.workspaceId);
    expect(after).toMatchObject(expected(names, { original: label, copy: label, repost: label }));
    expect(after.counted).toContain(
      'for the post someone corrected and the 2 posts with the same text as one',
    );
    expect(await split(other)).toEqual(otherBefore);
    const shown = await listed(team.workspaceId);
    expect(shown.get(ids.copy)!.sentiment_label).toBe(label);
    expect(shown.get(ids.copy)!.sentiment_correction).toMatchObject({
      inherited_from: ids.original,
      estimated_label: estimates.copy,
      corrected_by: team.owner.email,
    });
    expect(shown.get(ids.original)!.sentiment_correction!.inherited_from).toBeNull();
    expect(shown.get(ids.unrelated)!.sentiment_correction).toBeNull();
    const elsewhere = await listed(other);
    expect(elsewhere.get(ids.copy)!.sentiment_correction).toBeNull();
    expect(elsewhere.get(ids.copy)!.sentiment_label).toBe(estimates.copy);
    // The post's own page says so too.
    const detail = await as(server, team.viewer, {
      method: 'POST',
      url: '/social/posts/detail',
      payload: { workspace_id: team.workspaceId, post_id: ids.repost },
    });
    expect(detail.json<{ post: SocialPost }>().post.sentiment_correction?.inherited_from).toBe(ids.original);

    // A near-duplicate imported after the correction follows it at once.
    names.push('later');
    await importPosts(['later']);
    expect(await split(team.workspaceId)).toMatchObject(
      expected(names, { original: label, copy: label, repost: label, later: label }),
    );
    expect(await split(other)).toMatchObject(expected(names, {}));

    // An explicit correction of a near-duplicate beats the inherited one; the key's latest correction is now the
    // copy's, so the posts that inherit follow it; the original keeps its own.
    const own = (['negative', 'neutral', 'positive'] as const).find((l) => l !== label)!;
    await correct(team.workspaceId, ids.copy, own);
    expect(await split(team.workspaceId)).toMatchObject(
      expected(names, { original: label, copy: own, repost: own, later: own }),
    );
    expect((await listed(team.workspaceId)).get(ids.repost)!.sentiment_correction!.inherited_from).toBe(
      ids.copy,
    );
    expect((await listed(team.workspaceId)).get(ids.copy)!.sentiment_correction!.inherited_from).toBeNull();

    // Undoing the original's correction takes back its own label; the copy's correction, and what it gives, stay.
    await correct(team.workspaceId, ids.original, null);
    expect(await split(team.workspaceId)).toMatchObject(
      expected(names, { original: own, copy: own, repost: own, later: own }),
    );
    await correct(team.workspaceId, ids.copy, null);
    expect(await split(team.workspaceId)).toMatchObject(expected(names, {}));
    expect((await split(team.workspaceId)).counted).not.toContain('corrected');
    expect(await split(other)).toMatchObject(expected(names, {}));
  }, 120_000);

  it('agreement: the model with the corrections, and each corrected post with others of its text applied', async () => {
    const agreement = async (person = team.viewer, workspace = team.workspaceId) => {
      const res = await as(server, person, {
        method: 'GET',
        url: `/api/workspaces/${workspace}/sentiment-agreement`,
      });
      return { status: res.statusCode, body: res.json<SentimentAgreementResponse>() };
    };
    expect((await agreement()).body).toEqual({ corrected: 0, model_agreeing: 0, adapted_agreeing: 0 });
    const label = labelOtherThan('original', 'copy');
    await correct(team.workspaceId, ids.original, label);
    // Corrected alone: the model disagrees, and nothing else of its text was corrected.
    expect((await agreement()).body).toEqual({ corrected: 1, model_agreeing: 0, adapted_agreeing: 0 });
    await correct(team.workspaceId, ids.copy, label);
    // Each of the two, its own correction set aside, inherits the other's.
    expect((await agreement()).body).toEqual({ corrected: 2, model_agreeing: 0, adapted_agreeing: 2 });
    await correct(team.workspaceId, ids.unrelated, estimates.unrelated);
    expect((await agreement()).body).toEqual({ corrected: 3, model_agreeing: 1, adapted_agreeing: 3 });
    // Another workspace has none; a non-member is told there is no such workspace.
    expect((await agreement(team.owner, other)).body).toEqual({
      corrected: 0,
      model_agreeing: 0,
      adapted_agreeing: 0,
    });
    expect((await agreement(team.outsider)).status).toBe(404);
    for (const name of ['original', 'copy', 'unrelated'] as const)
      await correct(team.workspaceId, ids[name], null);
    expect((await agreement()).body).toEqual({ corrected: 0, model_agreeing: 0, adapted_agreeing: 0 });
  });
});
