// Tag rules applied to posts (issue 55, item 3): each rule keeps a cursor, the last post id it has been applied to, and
// is carried on in batches in id order, each batch one transaction (the posts' rule rows and the cursor together). A new
// or changed rule starts at 0, so it tags every past post; writers of the corpus take turns (the corpus lock, held to
// their commit: server/social/corpus/changes.ts), so posts committed later have higher ids and a rule applied up to the
// newest post then tags every new post above its cursor as it arrives: one path for past and new posts. The periodic
// job carries every rule on each minute, and a rule's route starts its own at once. A batch's rule row is locked (SKIP
// LOCKED): two processes never apply one rule's batch twice, and a route changing the rule waits for the batch.
// Rule rows say what the rule set; manual rows (a person's) win over them when read (store.ts).
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { tagRules } from '@server/db/tags-schema';
import { listsFor } from '@server/lists/store';
import { parseWithLists } from '@server/query/index';
import { compileMatcher, type MatchPost } from '@server/query/match';
import type { PeriodicJob } from '@server/scheduler';

const BATCH = 5_000;

type PostRow = {
  id: string;
  text: string;
  platform: string;
  language: string | null;
  hashtags: string[];
  mentions: string[];
  handle: string;
  country: string | null;
  kind: string;
  engagement: number;
  followers: number;
  domains: string[];
};

const matchPostOf = (row: PostRow): MatchPost => ({
  text: row.text,
  platform: row.platform,
  language: row.language,
  hashtags: row.hashtags,
  mentions: row.mentions,
  handle: row.handle,
  country: row.country,
  kind: row.kind,
  engagement: row.engagement,
  followers: row.followers,
  domains: row.domains,
});

/** The newest post's id (0 for an empty corpus): a rule whose cursor is there is caught up. */
export async function newestPostId(db: Db): Promise<number> {
  const { rows } = await db.execute<{ id: string | null }>(sql`SELECT max(id)::text AS id FROM post_keys`);
  return Number(rows[0]?.id ?? 0);
}

/**
 * One batch of one rule, in one transaction: the posts above its cursor, the rule rows of those it matches, and the
 * cursor moved past them. Returns false when there is nothing to do (caught up, taken by another process, deleted, or
 * a query that no longer parses against the workspace's lists: it waits, untouched, for its lists or its text).
 */
async function applyBatch(db: Db, ruleId: string, batchSize: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [rule] = await tx
      .select()
      .from(tagRules)
      .where(eq(tagRules.id, ruleId))
      .for('update', { skipLocked: true });
    if (!rule) return false;
    const parsed = parseWithLists(rule.query, await listsFor(tx, rule.workspaceId, rule.query));
    if (!parsed.ok) return false;
    const { rows } = await tx.execute<PostRow>(
      sql`SELECT p.id::text AS id, p.text, p.platform::text AS platform, p.language, p.hashtags, p.mentions,
        a.handle, a.country, p.kind::text AS kind, p.engagement, a.followers, p.domains
      FROM posts p JOIN profiles a ON a.id = p.author_id
      WHERE p.id > ${rule.cursor} ORDER BY p.id LIMIT ${batchSize}`,
    );
    if (rows.length === 0) return false;
    const matcher = compileMatcher([{ id: rule.id, ast: parsed.ast }]);
    const matched = rows.filter((row) => matcher.match(matchPostOf(row)).length > 0).map((row) => row.id);
    if (matched.length > 0) {
      await tx.execute(
        sql`INSERT INTO post_tags (workspace_id, post_id, tag_id, set_by, rule_id)
          SELECT ${rule.workspaceId}, unnest(${`{${matched.join(',')}}`}::bigint[]), ${rule.tagId}::uuid, 'rule',
            ${rule.id}::uuid
          ON CONFLICT DO NOTHING`,
      );
    }
    await tx
      .update(tagRules)
      .set({ cursor: Number(rows[rows.length - 1]!.id) })
      .where(and(eq(tagRules.id, rule.id)));
    return true;
  });
}

export interface ApplyOptions {
  /** Only these rules; every rule behind the newest post when absent. */
  ruleIds?: readonly string[];
  batchSize?: number;
  /** Stops after the batch that ends past this many milliseconds; none by default. */
  budgetMs?: number;
}

/** Carries rules on until each is caught up with the newest post (or the budget is spent). Returns batches applied. */
export async function applyTagRules(db: Db, options: ApplyOptions = {}): Promise<number> {
  const { batchSize = BATCH, budgetMs } = options;
  const started = Date.now();
  const newest = await newestPostId(db);
  const behind = await db
    .select({ id: tagRules.id })
    .from(tagRules)
    .where(sql`${tagRules.cursor} < ${newest}`)
    .orderBy(tagRules.cursor);
  const ids = options.ruleIds
    ? behind.map((row) => row.id).filter((id) => options.ruleIds!.includes(id))
    : behind.map((row) => row.id);
  let batches = 0;
  for (const id of ids) {
    while (await applyBatch(db, id, batchSize)) {
      batches += 1;
      if (budgetMs !== undefined && Date.now() - started > budgetMs) return batches;
    }
  }
  return batches;
}

/** Every minute: each rule carried on over the posts stored since (new posts), or its past ones still left. */
export const tagRulesJob = (db: Db): PeriodicJob => ({
  name: 'tag-rules-apply',
  cron: '* * * * *',
  timeoutSeconds: 15 * 60,
  run: async () => {
    await applyTagRules(db, { budgetMs: 10 * 60_000 });
  },
});
