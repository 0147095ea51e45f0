// Tag rules applied to posts (issue 55, item 3): each rule keeps a cursor, the last post id it has been applied to, and
// is carried on in batches in id order, each batch one transaction (the posts' rule rows and the cursor together). A new
// or changed rule starts at 0, so it tags every past post; writers of the corpus take turns (the corpus lock, held to
// their commit: server/social/corpus/changes.ts), so posts committed later have higher ids and a rule applied up to the
// newest post then tags every new post above its cursor as it arrives: one path for past and new posts. The periodic
// job carries every rule on each minute, and a rule's route starts its own at once. Rules at one cursor (every rule
// caught up) share a pass over the posts and one matcher (server/query/match). A batch's rule rows are locked (SKIP
// LOCKED): two processes never apply one rule's batch twice, and a route changing a rule waits for the batch.
// Rule rows say what the rule set; manual rows (a person's) win over them when read (store.ts).
import { and, desc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { tagRules } from '@server/db/tags-schema';
import { listsFor } from '@server/lists/store';
import { parseWithLists } from '@server/query/index';
import { compileMatcher, type MatchPost, type TrackedQuery } from '@server/query/match';
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
  url: string | null;
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
  url: row.url,
});

/** The newest post's id (0 for an empty corpus): a rule whose cursor is there is caught up. */
export async function newestPostId(db: Db): Promise<number> {
  const { rows } = await db.execute<{ id: string | null }>(sql`SELECT max(id)::text AS id FROM post_keys`);
  return Number(rows[0]?.id ?? 0);
}

interface Round {
  newest: number;
  ruleIds?: readonly string[] | undefined;
  /** Rules left alone in this call: their query does not parse, or another process holds them. */
  skipped: Set<string>;
  batchSize: number;
}

/**
 * One batch in one transaction, for every rule at the highest cursor behind the newest post (rules caught up move
 * together, so one pass over the new posts serves them all, before rules still tagging past posts): the posts above
 * that cursor, matched by one matcher over the rules' queries, the rule rows of their matches, and the rules' cursor
 * moved past them. False when no rule is behind. A rule whose query no longer parses against its workspace's lists
 * waits, untouched, for its lists or its text; rules another process holds are left to it.
 */
async function applyRound(db: Db, round: Round): Promise<boolean> {
  return db.transaction(async (tx) => {
    const behind = and(
      sql`${tagRules.cursor} < ${round.newest}`,
      round.ruleIds ? inArray(tagRules.id, [...round.ruleIds]) : undefined,
      round.skipped.size ? notInArray(tagRules.id, [...round.skipped]) : undefined,
    );
    const [top] = await tx
      .select({ cursor: tagRules.cursor })
      .from(tagRules)
      .where(behind)
      .orderBy(desc(tagRules.cursor))
      .limit(1);
    if (!top) return false;
    const atTop = and(behind, eq(tagRules.cursor, top.cursor));
    const rules = await tx.select().from(tagRules).where(atTop).for('update', { skipLocked: true });
    if (rules.length === 0) {
      for (const held of await tx.select({ id: tagRules.id }).from(tagRules).where(atTop))
        round.skipped.add(held.id);
      return true;
    }
    const queries: TrackedQuery[] = [];
    for (const rule of rules) {
      const parsed = parseWithLists(rule.query, await listsFor(tx, rule.workspaceId, rule.query));
      if (parsed.ok) queries.push({ id: rule.id, ast: parsed.ast });
      else round.skipped.add(rule.id);
    }
    if (queries.length === 0) return true;
    const { rows } = await tx.execute<PostRow>(
      sql`SELECT p.id::text AS id, p.text, p.platform::text AS platform, p.language, p.hashtags, p.mentions,
        a.handle, a.country, p.kind::text AS kind, p.engagement, a.followers, p.domains, p.url
      FROM posts p JOIN profiles a ON a.id = p.author_id
      WHERE p.id > ${top.cursor} ORDER BY p.id LIMIT ${round.batchSize}`,
    );
    if (rows.length === 0) {
      for (const query of queries) round.skipped.add(query.id);
      return true;
    }
    const matcher = compileMatcher(queries);
    const matches = new Map<string, string[]>();
    for (const row of rows) {
      for (const id of matcher.match(matchPostOf(row))) matches.set(id, [...(matches.get(id) ?? []), row.id]);
    }
    for (const rule of rules) {
      const posts = matches.get(rule.id);
      if (!posts) continue;
      await tx.execute(
        sql`INSERT INTO post_tags (workspace_id, post_id, tag_id, set_by, rule_id)
          SELECT ${rule.workspaceId}, unnest(${`{${posts.join(',')}}`}::bigint[]), ${rule.tagId}::uuid, 'rule',
            ${rule.id}::uuid
          ON CONFLICT DO NOTHING`,
      );
    }
    await tx
      .update(tagRules)
      // A rule begun here has its past posts matched one by one (server/social/insights/rule-past.ts reads them from the store otherwise).
      .set({
        cursor: Number(rows[rows.length - 1]!.id),
        pastFrom: sql`coalesce(${tagRules.pastFrom}, 'matcher')`,
      })
      .where(
        inArray(
          tagRules.id,
          queries.map((query) => query.id),
        ),
      );
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
  const round: Round = {
    newest: await newestPostId(db),
    ruleIds: options.ruleIds,
    skipped: new Set(),
    batchSize,
  };
  let batches = 0;
  while (await applyRound(db, round)) {
    batches += 1;
    if (budgetMs !== undefined && Date.now() - started > budgetMs) break;
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
