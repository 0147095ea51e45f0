// The held-out measurement of learning from the team (issue 53, item 6): a small hand-labelled set
// (test/fixtures/sentiment-held-out.ndjson: sarcasm, copies with other case, links, mentions, punctuation and
// spacing, reposts, and texts with no copy) imported as posts; every other post in the file's order is corrected by
// the team with its label, and agreement with the labels is measured on the posts nobody corrected, before and after.
// What it shows: the held-out posts that are near-duplicates of a corrected post take the team's label, so agreement
// rises by the ones the model had wrong; a held-out post with no corrected copy keeps the model's label, right or
// wrong. It says nothing of how many copies real data has (docs/sentiment.md, "Learning from the team").
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SentimentAgreementResponse } from '@contract/sentiment-corrections';
import type { SocialPost } from '@contract/social-posts';
import { importCorpus } from '@server/social/corpus/import/run';
import { loadCorrections } from '@server/social/corrections';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createTeam, createWorkspace, type Team } from '@test/support/workspaces.fixtures';

type Label = SocialPost['sentiment_label'];
interface Labelled {
  id: string;
  gold: Label;
  text: string;
}
interface Post extends Labelled {
  postId: number;
  model: Label;
  key: string | null;
}

const FIXTURE = join(import.meta.dirname, '../../fixtures/sentiment-held-out.ndjson');
const labelled = readFileSync(FIXTURE, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as Labelled);

let server: TestServer;
let team: Team;
let other: string;
let posts: Post[];

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  team = await createTeam(server);
  other = (await createWorkspace(server, [[team.owner, 'owner']])).id;
  const dir = mkdtempSync(join(tmpdir(), 'murmur-held-out-'));
  try {
    const file = join(dir, 'posts.ndjson');
    writeFileSync(
      file,
      labelled
        .map((row, i) =>
          JSON.stringify({
            platform: 'x',
            external_id: `held-out-${row.id}`,
            author_external_id: `held-out-author-${i % 5}`,
            author_handle: `held_out_${i % 5}`,
            text: row.text,
            language: 'en',
            posted_at: new Date(Date.UTC(2026, 10, 10, 8, i)).toISOString(),
          }),
        )
        .join('\n') + '\n',
    );
    expect(await importCorpus(server.pool, file)).toMatchObject({ rejected: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const { rows } = await server.pool.query<{
    id: string;
    external_id: string;
    model: Label;
    key: string | null;
  }>(
    `SELECT id::text, external_id, sentiment_label AS model, text_key::text AS key FROM posts
      WHERE external_id LIKE 'held-out-%'`,
  );
  const byExternal = new Map(rows.map((row) => [row.external_id, row]));
  posts = labelled.map((row) => {
    const stored = byExternal.get(`held-out-${row.id}`)!;
    return { ...row, postId: Number(stored.id), model: stored.model, key: stored.key };
  });
}, 120_000);
afterAll(async () => {
  await server?.close();
});

const share = (agreeing: number, of: number) => agreeing / of;

describe('correcting half of a labelled set', () => {
  it('raises agreement on the other half through near-duplicates, in that workspace only', async () => {
    const corrected = posts.filter((_, i) => i % 2 === 0);
    const heldOut = posts.filter((_, i) => i % 2 === 1);
    // The set's labels agree within a text: copies of one text carry one label.
    for (const a of posts)
      for (const b of posts) if (a.key && a.key === b.key) expect(a.gold, a.id).toBe(b.gold);

    const agreement = async (workspace: string) => {
      const corrections = await loadCorrections(server.db, workspace);
      const label = (post: Post) => corrections.byId.get(post.postId)?.label ?? post.model;
      return heldOut.filter((post) => label(post) === post.gold).length;
    };
    const before = await agreement(team.workspaceId);
    expect(before).toBe(heldOut.filter((post) => post.model === post.gold).length);

    for (const post of corrected) {
      const res = await as(server, team.owner, {
        method: 'PUT',
        url: `/api/workspaces/${team.workspaceId}/posts/${post.postId}/sentiment`,
        payload: { label: post.gold },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const after = await agreement(team.workspaceId);

    // Which held-out posts can learn: those with the same text as a corrected post.
    const correctedKeys = new Set(corrected.map((post) => post.key).filter(Boolean));
    const copies = heldOut.filter((post) => post.key && correctedKeys.has(post.key));
    const fixedByCopies = copies.filter((post) => post.model !== post.gold).length;
    expect(fixedByCopies).toBeGreaterThan(0);
    expect(after).toBe(before + fixedByCopies);
    expect(share(after, heldOut.length)).toBeGreaterThan(share(before, heldOut.length));
    // A held-out post with no corrected copy keeps the model's label, even where the model is wrong.
    const alone = heldOut.filter((post) => !copies.includes(post));
    expect(alone.some((post) => post.model !== post.gold)).toBe(true);
    const corrections = await loadCorrections(server.db, team.workspaceId);
    for (const post of alone) expect(corrections.byId.has(post.postId), post.id).toBe(false);
    // Another workspace learnt nothing.
    expect(await agreement(other)).toBe(before);

    // Settings' figure over the corrected half: the model's agreement, and with the other copies' corrections.
    const res = await as(server, team.viewer, {
      method: 'GET',
      url: `/api/workspaces/${team.workspaceId}/sentiment-agreement`,
    });
    const figure = res.json<SentimentAgreementResponse>();
    expect(figure.corrected).toBe(corrected.length);
    expect(figure.model_agreeing).toBe(corrected.filter((post) => post.model === post.gold).length);
    const copiedAmongCorrected = (post: Post) =>
      corrected.some((peer) => peer !== post && peer.key !== null && peer.key === post.key);
    expect(figure.adapted_agreeing).toBe(
      corrected.filter((post) => (copiedAmongCorrected(post) ? true : post.model === post.gold)).length,
    );
  });
});
