// `npm run bench:rules [-- --posts 1000000 --reads --only "field filter"]`: a tag rule's past
// matches from the analytics store (server/social/insights/rule-past.ts) on a bench corpus (bench-corpus.ts): for a few
// rules (`--only`: those labels, comma-separated), the store's statement alone (every matching id and the store's
// newest post, through fromStore as the rule's route reads it), then the whole of applyPastFromStore as the route runs
// it (the read again, and the rule's ranges written in PostgreSQL in one transaction: migration 0057). Each
// rule is made in a workspace of its own, deleted at the end with its rows (the store is fed their tags and then their
// removal, as for any rule). Prints, per rule, its matches, the read's and the whole pass's time, when the store's
// figures had its tags, how long after the deletion they no longer had them, and the corpus's posts per second (the
// posts the store holds over the whole pass), and the time 10M posts would take at that rate. `--reads`: meanwhile,
// from the rule's creation until the store's figures have its tags, and from its deletion until they are gone, an
// overview of 'nova' over the corpus's last 30 days is read every 200 ms (as a dashboard reads it: the store's figures
// and the posts looked up in PostgreSQL), and the reads answered, refused (503) and their times are printed: what other
// workspaces' dashboards meet meanwhile.
import { parseArgs } from 'node:util';
import type { ApiError } from '@server/errors';
import { loadServerConfig } from '@server/config';
import { connect } from '@server/db/database';
import { tagCategories, tagRules, tags } from '@server/db/tags-schema';
import { workspaces } from '@server/db/schema';
import { eq } from 'drizzle-orm';
import { STORE_DATABASE } from '@server/analytics/layout';
import { storeRulePosts } from '@server/analytics/figures/rule-posts';
import { parseQuery } from '@server/query/index';
import { fromStore } from '@server/social/insights/store-source';
import { applyPastFromStore } from '@server/social/insights/rule-past';
import { overview } from '@server/social/insights/overview';
import { resolveInsightScope } from '@server/social/insights/request';
import { DEFAULT_POSTS, openCorpus, startCorpusStore } from './bench-corpus';

const { values } = parseArgs({
  options: {
    posts: { type: 'string', default: String(DEFAULT_POSTS) },
    reads: { type: 'boolean', default: false },
    only: { type: 'string' },
  },
});
const size = Number(values.posts);

/** Rules of the bench's insights queries (scripts/bench-insights.ts), few to many matches. */
const RULES: Array<[string, string]> = [
  ['phrase', '"midnight harbor"'],
  ['OR of terms', 'cloudnest OR outage OR downdetector'],
  ['NOT', 'nova NOT #unboxing'],
  ['broad term', 'nova'],
  ['field filter', 'platform:tiktok'],
];

const { url, server, dataDir } = await openCorpus(size);
const database = await connect(url);
const config = loadServerConfig({ APP_ENV: 'qa', DEV_OIDC: 'false' });
const service = await startCorpusStore(dataDir, database, config);

/** Overview reads every 200 ms until `until` resolves: how many were answered, refused with 503, and their times. */
async function readsMeanwhile(until: Promise<unknown>) {
  const [{ to } = { to: '' }] = (
    await database.pool.query<{ to: string }>(`SELECT max(posted_at)::text AS to FROM posts`)
  ).rows;
  const end = new Date(to);
  const from = new Date(end.getTime() - 30 * 86_400_000).toISOString();
  const request = { workspace_id: 'w', query: 'nova', filters: { from, to: end.toISOString() }, refine: [] };
  const context = await resolveInsightScope(database.db, { timeZone: 'UTC' }, request);
  let done = false;
  const stop = () => (done = true);
  void until.then(stop, stop);
  const times: number[] = [];
  const refused: string[] = [];
  while (!done) {
    const started = performance.now();
    try {
      await overview(database.db, context, service);
      times.push(performance.now() - started);
    } catch (error) {
      const { statusCode, options } = error as ApiError;
      if (statusCode !== 503) throw error;
      const { phase } = (options?.body?.progress ?? {}) as { phase?: string };
      refused.push(phase ?? (error as ApiError).code);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(0);
  const why = refused.length ? ` (${refused.join(', ')})` : '';
  return `overview reads: ${times.length} answered (p50 ${at(0.5)}, p95 ${at(0.95)}, max ${at(1)} ms), ${refused.length} 503${why}`;
}

try {
  const [{ n } = { n: '0' }] = await service
    .reading()!
    .store.query<{ n: string }>(`SELECT count() AS n FROM ${STORE_DATABASE}.posts`);
  const posts = Number(n);
  console.log(`${posts.toLocaleString('en-US')} posts in the store.`);
  const only = values.only?.split(',').map((label) => label.trim());
  for (const [label, query] of RULES.filter(([label]) => !only || only.includes(label))) {
    const parsed = parseQuery(query);
    if (!parsed.ok) throw new Error(`${label}: ${query} does not parse`);
    const started = performance.now();
    const found = await fromStore(
      database.db,
      { timeZone: 'UTC' },
      service,
      (store) => storeRulePosts(store, parsed.ast),
      async (_tx, rows) => rows,
    );
    const read = performance.now() - started;
    const [workspace] = await database.db.insert(workspaces).values({ name: 'bench-rules' }).returning();
    let whole = 0;
    let fed = 0;
    let removed = 0;
    let reads = '';
    try {
      const [category] = await database.db
        .insert(tagCategories)
        .values({ workspaceId: workspace!.id, name: 'Bench' })
        .returning();
      const [tag] = await database.db
        .insert(tags)
        .values({ workspaceId: workspace!.id, categoryId: category!.id, name: label })
        .returning();
      const [rule] = await database.db
        .insert(tagRules)
        .values({ workspaceId: workspace!.id, tagId: tag!.id, query })
        .returning();
      const began = performance.now();
      const applied = (async () => {
        const from = await applyPastFromStore(database.db, service, rule!.id);
        whole = performance.now() - began;
        if (from !== 'store') throw new Error(`${label}: the store did not answer (${from})`);
        await service.catchUp(600_000);
        fed = performance.now() - began;
      })();
      if (values.reads) reads = await readsMeanwhile(applied);
      await applied;
    } finally {
      const deleting = performance.now();
      const gone = (async () => {
        await database.db.delete(workspaces).where(eq(workspaces.id, workspace!.id));
        // The store takes the removal in before the next rule is timed.
        await service.catchUp(600_000);
        removed = performance.now() - deleting;
      })();
      if (values.reads) reads += `; deleted: ${await readsMeanwhile(gone)}`;
      await gone;
    }
    const seconds = whole / 1000;
    console.log(
      `${label.padEnd(13)} ${found.ids.length.toLocaleString('en-US').padStart(9)} matches · read ` +
        `${(read / 1000).toFixed(2)} s · whole ${seconds.toFixed(2)} s (in the store's figures ` +
        `${(fed / 1000).toFixed(2)} s; deleted, out of them ${(removed / 1000).toFixed(2)} s later) · ` +
        `${Math.round(posts / seconds).toLocaleString('en-US')} posts/s · 10M posts ≈ ` +
        `${((seconds * 10_000_000) / posts).toFixed(1)} s${reads ? ` · ${reads}` : ''}`,
    );
  }
} finally {
  await service.stop();
  await database.close();
  await server?.stop();
}
