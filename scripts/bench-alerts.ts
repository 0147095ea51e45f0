// `npm run bench:alerts [-- --posts 1000000 --queries 100 --rules 300 --ingest 10000 --batch 1000]`: what evaluating
// alert rules costs (server/alerts/evaluate.ts), on a bench corpus (scripts/bench-corpus.ts, 1M posts unless --posts
// says otherwise) with its analytics store, as `npm start` runs it.
//
// A workspace is made with `--queries` saved queries (hashtags, mentions and words of the generated corpus's topics and
// brands) and `--rules` rules over them (spike, volume and sentiment shift, by the hour and by the day, in turn). Then:
// 1. one evaluation round at the corpus's latest hour, from the store: its wall time, the overviews read, and per
//    rule;
// 2. `--ingest` new posts written through the change path in batches of `--batch`, dated in that latest hour, each
//    batch applied by the store and then evaluated (as the job is nudged after each applied round, at most every 5 s:
//    here after every batch, the worst case): the evaluation time per 10,000 ingested posts, and the rules fired.
// The posts, the workspace and its rules are removed at the end (the posts through the change path), so the corpus is
// as it was. The load averages are printed before and after.
import { parseArgs } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import { loadServerConfig } from '@server/config';
import { connect } from '@server/db/database';
import { workspaces } from '@server/db/schema';
import { alertEvents, alertRules } from '@server/db/alerts-schema';
import { savedQueries } from '@server/db/social-schema';
import { evaluateAlerts } from '@server/alerts/evaluate';
import { insertPosts } from '@server/social/corpus/changes';
import { BRANDS } from '@server/social/corpus/generate/brands';
import { TOPICS } from '@server/social/corpus/generate/topics';
import { ALERT_KINDS, ALERT_PERIODS } from '@contract/alerts';
import { loadLine } from './bench-cpu';
import { DEFAULT_POSTS, openCorpus, startCorpusStore } from './bench-corpus';

const { values } = parseArgs({
  options: {
    posts: { type: 'string', default: String(DEFAULT_POSTS) },
    queries: { type: 'string', default: '100' },
    rules: { type: 'string', default: '300' },
    ingest: { type: 'string', default: '10000' },
    batch: { type: 'string', default: '1000' },
  },
});
const size = Number(values.posts);
const queryCount = Number(values.queries);
const ruleCount = Number(values.rules);
const ingest = Number(values.ingest);
const batch = Number(values.batch);
const BENCH_PREFIX = 'bench-alerts-';

/** What analysts save: the corpus's hashtags, brands and words, then the same on one platform. */
function queryTexts(n: number): string[] {
  const tags = [...new Set(TOPICS.flatMap((t) => Object.values(t.hashtags).flat()))].map((tag) => `#${tag}`);
  const brands = BRANDS.map((b) => `@${b.handle}`);
  const words = TOPICS.map((t) => t.id);
  const base = [...tags, ...brands, ...words];
  const out: string[] = [];
  for (let i = 0; out.length < n; i += 1) {
    const text = base[i % base.length]!;
    out.push(i < base.length ? text : `platform:${['x', 'reddit', 'tiktok'][i % 3]} ${text}`);
  }
  return out;
}

const ms = (n: number) => `${n.toFixed(0)} ms`;
/** The kinds judged on the overview's windows (source_silent reads tracking's coverage, not measured here). */
const WINDOW_KINDS = ALERT_KINDS.filter((kind) => kind !== 'source_silent');

async function main() {
  console.log(`Before: ${loadLine()}`);
  const { url, server, dataDir } = await openCorpus(size);
  const database = await connect(url);
  const config = loadServerConfig({ APP_ENV: 'qa', DEV_OIDC: 'false' });
  const service = await startCorpusStore(dataDir, database, config);
  const { db } = database;
  const [stats] = (
    await db.execute<{ posts: number; latest: string; author: string }>(
      sql`SELECT count(*)::int AS posts, max(posted_at)::text AS latest,
        (SELECT id::text FROM profiles ORDER BY id LIMIT 1) AS author FROM posts`,
    )
  ).rows;
  const latest = new Date(stats!.latest);
  // Evaluated a few minutes into the latest post's hour: its hour and day are the windows.
  const now = new Date(Math.floor(latest.getTime() / 3_600_000) * 3_600_000 + 50 * 60_000);
  console.log(
    `Corpus: ${stats!.posts.toLocaleString('en-US')} posts, the latest at ${latest.toISOString()}; evaluated at ` +
      `${now.toISOString()}.`,
  );

  const [workspace] = await db
    .insert(workspaces)
    .values({ name: 'Bench alerts', timeZone: 'UTC' })
    .returning();
  let added: number[] = [];
  try {
    const queries = await db
      .insert(savedQueries)
      .values(
        queryTexts(queryCount).map((query, i) => ({
          workspaceId: workspace!.id,
          name: `Q${i} ${query}`,
          query,
        })),
      )
      .returning({ id: savedQueries.id });
    await db.insert(alertRules).values(
      Array.from({ length: ruleCount }, (_, i) => {
        const kind = WINDOW_KINDS[i % WINDOW_KINDS.length]!;
        return {
          workspaceId: workspace!.id,
          savedQueryId: queries[i % queries.length]!.id,
          kind,
          period: ALERT_PERIODS[Math.floor(i / WINDOW_KINDS.length) % ALERT_PERIODS.length]!,
          threshold: kind === 'spike' ? null : kind === 'volume' ? 50 : 10,
          inApp: false,
          webhookSecret: 'bench',
        };
      }),
    );
    console.log(
      `${queryCount} saved queries, ${ruleCount} rules (spike, volume, sentiment shift; hour, day).\n`,
    );
    const log = () => {};

    // 1. One round.
    const roundStarted = performance.now();
    const round = await evaluateAlerts({ db, analytics: service, now, log });
    const took = performance.now() - roundStarted;
    console.log(
      `One round: ${ms(took)} (${round.overviews} overviews, ${(took / round.rules).toFixed(1)} ms a rule, ` +
        `${(took / round.overviews).toFixed(1)} ms an overview; ${round.fired} fired, ${round.failed} failed)`,
    );
    // The ingest's rounds start from no episode, as this one did.
    await db.delete(alertEvents).where(eq(alertEvents.workspaceId, workspace!.id));
    await db.update(alertRules).set({ episodeWindow: null }).where(eq(alertRules.workspaceId, workspace!.id));

    // 2. Ingest, a round after each applied batch.
    const texts = queryTexts(queryCount);
    let evaluating = 0;
    let fired = 0;
    let rounds = 0;
    for (let start = 0; start < ingest; start += batch) {
      const rows = Array.from({ length: Math.min(batch, ingest - start) }, (_, j) => {
        const i = start + j;
        return {
          authorId: Number(stats!.author),
          platform: 'x' as const,
          externalId: `${BENCH_PREFIX}${Date.now()}-${i}`,
          text: `${texts[i % texts.length]!.replace(/^platform:\S+ /, '')} bench ingest ${i}`,
          language: 'en',
          postedAt: new Date(now.getTime() - 40 * 60_000 + (i % 2_400) * 1_000),
          kind: 'original' as const,
          media: 'text' as const,
          likes: i % 7,
          comments: i % 3,
          shares: 0,
          views: null,
          hashtags: [],
          mentions: [],
          domains: [],
          sentiment: i % 4 === 0 ? -0.7 : 0.1,
          sentimentLabel: i % 4 === 0 ? ('negative' as const) : ('neutral' as const),
        };
      });
      added = [...added, ...(await insertPosts(db, rows))];
      await service.caughtUpOnce();
      const started = performance.now();
      const result = await evaluateAlerts({ db, analytics: service, now, log });
      evaluating += performance.now() - started;
      fired += result.fired;
      rounds += 1;
    }
    console.log(
      `\nIngest of ${ingest.toLocaleString('en-US')} posts in batches of ${batch}, a round after each applied batch: ` +
        `${rounds} rounds, ${ms(evaluating)} evaluating (${ms((evaluating / ingest) * 10_000)} per 10,000 posts, ` +
        `${ms(evaluating / rounds)} a round); ${fired} rules fired.`,
    );
  } finally {
    if (added.length) {
      await db.transaction(async (tx) => {
        await tx.execute(sql`SELECT corpus_changes_begin()`);
        await tx.execute(sql`INSERT INTO corpus_removed
          SELECT p.id, p.platform, p.external_id, p.author_id, p.language, p.posted_at, p.kind, p.media, p.likes,
            p.comments, p.shares, p.views, p.hashtags, p.mentions, p.domains, p.sentiment, p.sentiment_label,
            p.engagement
          FROM posts p WHERE p.id = ANY(${sql.param(added)}::bigint[])`);
        await tx.execute(sql`SELECT corpus_changes_apply()`);
      });
      await service.caughtUpOnce();
    }
    await db.delete(workspaces).where(eq(workspaces.id, workspace!.id));
    await service.stop();
    await database.close();
    await server?.stop();
  }
  console.log(`\nAfter: ${loadLine()}`);
}

await main();
