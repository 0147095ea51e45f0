// `npm run bench:rules [-- --posts 1000000 --batch 50000]`: a tag rule's past matches from the analytics store
// (server/social/insights/rule-past.ts) on a bench corpus (bench-corpus.ts): for a few rules, the store's statement
// (every matching id and the store's newest post, through fromStore as the rule's route reads it), then the rule's
// rows written in PostgreSQL in batches of `--batch`, as the route writes them, each batch a savepoint of one
// transaction that is rolled back at the end (with the workspace, tag and rule it made): the corpus and its store are
// left as they were. Prints, per rule, its matches, the read's and the writes' time and the corpus's posts per second
// (the posts the store holds over the whole time), and the time 10M posts would take at that rate.
import { parseArgs } from 'node:util';
import { loadServerConfig } from '@server/config';
import { connect } from '@server/db/database';
import { tagCategories, tagRules, tags } from '@server/db/tags-schema';
import { workspaces } from '@server/db/schema';
import { STORE_DATABASE } from '@server/analytics/layout';
import { storeRulePosts } from '@server/analytics/figures/rule-posts';
import { parseQuery } from '@server/query/index';
import { fromStore } from '@server/social/insights/store-source';
import { WRITE_BATCH, writeRuleRows } from '@server/social/insights/rule-past';
import { DEFAULT_POSTS, openCorpus, startCorpusStore } from './bench-corpus';

const { values } = parseArgs({
  options: {
    posts: { type: 'string', default: String(DEFAULT_POSTS) },
    batch: { type: 'string', default: String(WRITE_BATCH) },
  },
});
const [size, batch] = [Number(values.posts), Number(values.batch)];

/** Rules of the bench's insights queries (scripts/bench-insights.ts), few to many matches. */
const RULES: Array<[string, string]> = [
  ['phrase', '"midnight harbor"'],
  ['OR of terms', 'cloudnest OR outage OR downdetector'],
  ['NOT', 'nova NOT #unboxing'],
  ['broad term', 'nova'],
  ['field filter', 'platform:tiktok'],
];

class RolledBack extends Error {}

const { url, server, dataDir } = await openCorpus(size);
const database = await connect(url);
const config = loadServerConfig({ APP_ENV: 'qa', DEV_OIDC: 'false' });
const service = await startCorpusStore(dataDir, database, config);
try {
  const [{ n } = { n: '0' }] = await service
    .reading()!
    .store.query<{ n: string }>(`SELECT count() AS n FROM ${STORE_DATABASE}.posts`);
  const posts = Number(n);
  console.log(
    `${posts.toLocaleString('en-US')} posts in the store; rows written ${batch.toLocaleString('en-US')} a batch.`,
  );
  for (const [label, query] of RULES) {
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
    let written = 0;
    await database.db
      .transaction(async (tx) => {
        const [workspace] = await tx.insert(workspaces).values({ name: 'bench-rules' }).returning();
        const [category] = await tx
          .insert(tagCategories)
          .values({ workspaceId: workspace!.id, name: 'Bench' })
          .returning();
        const [tag] = await tx
          .insert(tags)
          .values({ workspaceId: workspace!.id, categoryId: category!.id, name: label })
          .returning();
        const [rule] = await tx
          .insert(tagRules)
          .values({ workspaceId: workspace!.id, tagId: tag!.id, query })
          .returning();
        const writing = performance.now();
        for (let start = 0; start < found.ids.length; start += batch)
          await tx.transaction((batchTx) =>
            writeRuleRows(batchTx, rule!, found.ids.slice(start, start + batch)),
          );
        written = performance.now() - writing;
        throw new RolledBack();
      })
      .catch((error: unknown) => {
        if (!(error instanceof RolledBack)) throw error;
      });
    const seconds = (read + written) / 1000;
    console.log(
      `${label.padEnd(13)} ${found.ids.length.toLocaleString('en-US').padStart(9)} matches · read ` +
        `${(read / 1000).toFixed(2)} s · written ${(written / 1000).toFixed(2)} s · ` +
        `${Math.round(posts / seconds).toLocaleString('en-US')} posts/s · 10M posts ≈ ` +
        `${((seconds * 10_000_000) / posts).toFixed(1)} s`,
    );
  }
} finally {
  await service.stop();
  await database.close();
  await server?.stop();
}
