// The corpus follows the model (issue 53, item 5; server/social/corpus/rescan.ts): posts of another scorer version
// are rescored to the current one in id-ordered batches, each committed with the cursor and a line of the batch log;
// a corrected post gets its new estimate while its workspace's correction stays what its figures count; a rescan
// killed (kill -9) in a process of its own, inside a batch's transaction and again between batches, resumes from its
// cursor and ends with every post rescored exactly once (the batch log's ranges follow each other without gap or
// overlap and add up to the posts of other versions); and the changed posts reach the analytics store's outbox. The
// posts without a rating (stored before migration 0041) are rated by it, the "not rated" ones fed to the store.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutbox, registerConsumer } from '@server/analytics/outbox';
import { loadCorrections, withCorrection } from '@server/social/corrections';
import { generateCorpus } from '@server/social/corpus/generate/load';
import { rescanBatch, rescanProgress, runRescan } from '@server/social/corpus/rescan';
import { sentimentRated } from '@server/social/corpus/sentiment-explain';
import { scoreSentiment, sentimentModelVersion } from '@server/social/corpus/sentiment-model';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { createTeam, type Team } from '@test/support/workspaces.fixtures';

const ROOT = resolve(import.meta.dirname, '../../..');
const CHILD = join(ROOT, 'test/support/sentiment-rescan-child.ts');

let server: TestServer;
let team: Team;

beforeAll(async () => {
  server = await createTestServer({}, { store: false });
  team = await createTeam(server);
  // A consumer of the analytics store's feed (no store runs here): the outbox then records every change.
  await registerConsumer(server.db);
  await generateCorpus(server.pool, { seed: 53, posts: 400, end: Date.UTC(2026, 5, 1), batchSize: 200 });
}, 120_000);
afterAll(async () => {
  await server?.close();
});

/** Makes the posts whose id is a multiple of `every` look scored by `version`, neutral at 0 (an older scorer's). */
async function ageSome(version: string, every: number) {
  await server.pool.query(
    `SELECT corpus_update_posts('id % ${every} = 0', $$sentiment_model = '${version}', sentiment = 0,
      sentiment_label = 'neutral'$$)`,
  );
  const { rows } = await server.pool.query<{ id: string }>(
    'SELECT p.id::text AS id FROM posts p WHERE p.sentiment_model = $1 ORDER BY p.id',
    [version],
  );
  return rows.map((row) => Number(row.id));
}

const versions = async () =>
  (
    await server.pool.query<{ model: string; n: string }>(
      'SELECT sentiment_model AS model, count(*)::text AS n FROM posts GROUP BY 1',
    )
  ).rows.map((row) => [row.model, Number(row.n)]);

/** Every post scored as the current scorer scores it. */
async function expectScoredByCurrent() {
  const { rows } = await server.pool.query<{
    text: string;
    language: string | null;
    sentiment: number;
    label: string;
  }>('SELECT text, language, sentiment, sentiment_label AS label FROM posts');
  for (const row of rows) {
    const scored = scoreSentiment(row.text, row.language);
    expect({ label: row.label, sentiment: row.sentiment }).toEqual({
      label: scored.label,
      sentiment: scored.sentiment,
    });
  }
}

/** The batch log of the rescan to `version`: contiguous, without overlap, summing to `expected` posts. */
async function expectLoggedOnce(version: string, expected: number[]) {
  const { rows } = await server.pool.query<{ after_id: string; last_id: string; rescored: number }>(
    `SELECT b.after_id::text AS after_id, b.last_id::text AS last_id, b.rescored FROM sentiment_rescan_batches b
      WHERE b.model = $1 ORDER BY b.after_id`,
    [version],
  );
  let cursor = 0;
  for (const row of rows) {
    expect(Number(row.after_id)).toBe(cursor);
    cursor = Number(row.last_id);
  }
  expect(rows.reduce((sum, row) => sum + row.rescored, 0)).toBe(expected.length);
  expect(cursor).toBe(expected.at(-1));
}

/** The rescan in a process of its own (test/support/sentiment-rescan-child.ts); `next(prefix)` waits for a line. */
function runChild(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, server.databaseUrl, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((done) => child.once('exit', done));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    async next(prefix: string) {
      for (;;) {
        const { value, done } = await lines.next();
        if (done) throw new Error(`the rescan's process ended before "@@ ${prefix}"`);
        if (String(value).startsWith(`@@ ${prefix}`)) return;
      }
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('the sentiment rescan', () => {
  it('rescores posts of another version to the current one, keeping a corrected post’s correction', async () => {
    const version = sentimentModelVersion();
    const old = await ageSome('model-older', 3);
    expect(old.length).toBeGreaterThan(100);
    const corrected = old[5]!;
    await server.pool.query(
      `INSERT INTO sentiment_corrections (workspace_id, post_id, label, corrected_by) VALUES ($1, $2, 'negative', $3)`,
      [team.workspaceId, corrected, team.owner.id],
    );
    const correctionBefore = (
      await server.pool.query('SELECT * FROM sentiment_corrections WHERE post_id = $1', [corrected])
    ).rows;
    const { rows: seqRows } = await server.pool.query<{ seq: string }>(
      'SELECT coalesce(max(seq), 0)::text AS seq FROM analytics_outbox',
    );

    const progress = await runRescan(server.pool, { batchSize: 40 });
    expect(progress).toMatchObject({ model: version, total: old.length, done: old.length });
    expect(progress.finishedAt).not.toBeNull();
    expect(await versions()).toEqual([[version, 400]]);
    await expectScoredByCurrent();
    await expectLoggedOnce(version, old);

    // The correction is untouched and still what the workspace sees; the post's own estimate is the new model's.
    expect(
      (await server.pool.query('SELECT * FROM sentiment_corrections WHERE post_id = $1', [corrected])).rows,
    ).toEqual(correctionBefore);
    const { rows: posts } = await server.pool.query<{
      id: string;
      sentiment: number;
      sentiment_label: 'neutral';
    }>('SELECT id::text, sentiment, sentiment_label FROM posts WHERE id = $1', [corrected]);
    const seen = withCorrection(
      { ...posts[0]!, id: Number(posts[0]!.id) },
      await loadCorrections(server.db, team.workspaceId, [corrected]),
    );
    expect(seen.sentiment_label).toBe('negative');
    expect(seen.sentiment_correction?.estimated_label).toBe(posts[0]!.sentiment_label);

    // The posts whose label or score changed went to the analytics store's feed; the others only changed version.
    const fed = new Set(
      (await readOutbox(server.db, Number(seqRows[0]!.seq), 1000)).flatMap((batch) => batch.postIds),
    );
    const changed = (
      await server.pool.query<{ changed: number }>(
        'SELECT coalesce(sum(changed), 0)::int AS changed FROM sentiment_rescan_batches WHERE model = $1',
        [version],
      )
    ).rows[0]!.changed;
    expect(changed).toBeGreaterThan(0);
    expect(fed.size).toBe(changed);
    for (const id of fed) expect(old).toContain(id);

    // Finished: another run finds nothing to do and rescores nothing.
    const client = await server.pool.connect();
    try {
      expect(await rescanBatch(client)).toMatchObject({ done: old.length });
    } finally {
      client.release();
    }
  });

  it('killed (kill -9) mid-rescan in another process, resumes from its cursor: every post rescored exactly once', async () => {
    const version = sentimentModelVersion();
    await server.pool.query('DELETE FROM sentiment_rescans WHERE model = $1', [version]);
    const old = await ageSome('unknown', 2);
    const current = async () => (await versions()).find(([model]) => model === version)?.[1] ?? 0;

    // Killed inside its 4th batch's transaction, its posts, log row and cursor written but not committed: none of it
    // is kept, the 3 batches before it are.
    const held = runChild(['5', '4']);
    await held.next('held ');
    await held.kill();
    expect(await rescanProgress(server.pool, version)).toMatchObject({ done: 15, finishedAt: null });
    expect(await current()).toBe(400 - old.length + 15);

    // Started again and killed right after a batch committed (the next one's transaction open or about to be).
    const between = runChild(['5']);
    for (let i = 0; i < 3; i++) await between.next('batch ');
    await between.kill();
    const cut = await rescanProgress(server.pool, version);
    expect(cut!.done).toBeGreaterThanOrEqual(30);
    expect(cut!.done).toBeLessThan(old.length);
    expect(await current()).toBe(400 - old.length + cut!.done);

    const progress = await runRescan(server.pool, { batchSize: 5 });
    expect(progress).toMatchObject({ total: old.length, done: old.length, pass: 1 });
    expect(await versions()).toEqual([[version, 400]]);
    await expectScoredByCurrent();
    await expectLoggedOnce(version, old);
  }, 60_000);

  it('takes a post written behind the cursor by another version in a second pass', async () => {
    const version = 'model-next';
    const score = (text: string, language: string | null) => scoreSentiment(text, language);
    const client = await server.pool.connect();
    try {
      // Half the corpus done, then an older writer stores a post of its version below the cursor.
      for (let i = 0; i < 5; i++) await rescanBatch(client, { version, score, batchSize: 40 });
      await server.pool.query(
        `SELECT corpus_update_posts('id = (SELECT min(id) FROM posts)', $$sentiment_model = 'old'$$)`,
      );
    } finally {
      client.release();
    }
    const progress = await runRescan(server.pool, { version, score, batchSize: 40 });
    expect(progress).toMatchObject({ total: 401, done: 401, pass: 2 });
    expect(await versions()).toEqual([[version, 400]]);
  });

  it('rates the posts stored without a rating (before migration 0041), feeding the store those not rated', async () => {
    const version = 'model-next';
    const score = (text: string, language: string | null) => scoreSentiment(text, language);
    // Posts as migration 0041 leaves them (no rating), some of them with no word at all: "not rated" whatever the
    // model's label.
    await server.pool.query(`SELECT corpus_update_posts('id % 4 = 1', 'sentiment_rated = NULL')`);
    await server.pool.query(
      `SELECT corpus_update_posts('id % 4 = 2', $$text = '@nova https://x.example/a', sentiment_rated = NULL$$)`,
    );
    const { rows: seqRows } = await server.pool.query<{ seq: string }>(
      'SELECT coalesce(max(seq), 0)::text AS seq FROM analytics_outbox',
    );
    const unrated = async () =>
      (
        await server.pool.query<{ id: string }>('SELECT id::text FROM posts WHERE sentiment_rated IS NULL')
      ).rows.map((row) => Number(row.id));
    const pending = await unrated();
    expect(pending.length).toBeGreaterThan(150);

    // The finished rescan finds them and takes them in a pass of its own.
    const progress = await runRescan(server.pool, { version, score, batchSize: 40 });
    expect(progress.finishedAt).not.toBeNull();
    expect(await unrated()).toEqual([]);
    const { rows } = await server.pool.query<{
      id: string;
      text: string;
      language: string | null;
      label: 'negative' | 'neutral' | 'positive';
      rated: boolean;
    }>('SELECT id::text, text, language, sentiment_label AS label, sentiment_rated AS rated FROM posts');
    const fed = new Set(
      (await readOutbox(server.db, Number(seqRows[0]!.seq), 1000)).flatMap((batch) => batch.postIds),
    );
    let notRated = 0;
    for (const row of rows) {
      const scored = scoreSentiment(row.text, row.language);
      expect(row.rated, row.text).toBe(sentimentRated(scored.tokens, scored.label));
      if (row.text === '@nova https://x.example/a') expect(row.rated).toBe(false);
      // A post that became "not rated" is replaced through the change path (the store counts it apart); one rated
      // (as a post without a rating already counted) only has its rating set.
      if (pending.includes(Number(row.id))) expect(fed.has(Number(row.id)), row.id).toBe(!row.rated);
      if (!row.rated) notRated += 1;
    }
    expect(notRated).toBeGreaterThanOrEqual(100);
  });
});
