// `bench:insights -- --category`: a category of 20 tags set by rules, made in the bench's workspace (removed with it),
// so that the dashboard broken down by it (POST /social/insights/categories) is timed with the others (issue 55,
// item 4: "a dashboard broken down by a category of 20 tags at 10M stays within its targets"). Each rule's past
// matches are written as its route writes them (applyPastFromStore: the store's statement, then its ranges in
// PostgreSQL), one rule after the other, and the timing starts once the store's figures have every rule's tags.
import { eq, sql } from 'drizzle-orm';
import type { Db } from '@server/db/database';
import { tagCategories, tagRules, tags } from '@server/db/tags-schema';
import type { AnalyticsService } from '@server/analytics/service';
import { applyPastFromStore } from '@server/social/insights/rule-past';

/**
 * A "Topics" category as an analyst would set one up over the generated corpus (its English topics: a phone launch, a
 * cup final, a food trend, a service outage, an album, a series, everyday chatter), some narrow, some broad; two by
 * field alone.
 */
const RULES: Array<[string, string]> = [
  ['Battery', 'battery'],
  ['Camera', 'camera OR "night shots"'],
  ['Price', 'overpriced OR prices OR expensive'],
  ['Delivery', 'shipping OR delayed OR preorders'],
  ['Riverside FC', '"Riverside FC"'],
  ['The match', 'goal OR midfield OR kickoff'],
  ['Matcha tiramisu', '"matcha tiramisu"'],
  ['Recipes', 'recipe OR ladyfingers OR mascarpone'],
  ['CloudNest', 'cloudnest'],
  ['Outage', 'outage OR down OR crashed'],
  ['Support', 'support NOT cloudnest'],
  ['Status page', '"status page"'],
  ['AURORA9', 'aurora9 OR starlight'],
  ['Tickets', '"sold out" OR ticket'],
  ['Midnight Harbor', '"midnight harbor"'],
  ['Streaming', 'streamly OR buffering OR stream*'],
  ['Coffee', 'coffee OR café'],
  ['Weekend', 'weekend'],
  ['TikTok', 'platform:tiktok'],
  ['Spanish', 'lang:es'],
];

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** Makes the category in `workspaceId`, writes its rules' past matches, waits for the store's figures; its id. */
export async function makeBenchCategory(
  db: Db,
  service: AnalyticsService,
  workspaceId: string,
): Promise<string> {
  const began = performance.now();
  const [category] = await db.insert(tagCategories).values({ workspaceId, name: 'Topics' }).returning();
  const ruleIds: string[] = [];
  for (const [name, query] of RULES) {
    const [tag] = await db.insert(tags).values({ workspaceId, categoryId: category!.id, name }).returning();
    const [rule] = await db.insert(tagRules).values({ workspaceId, tagId: tag!.id, query }).returning();
    const from = await applyPastFromStore(db, service, rule!.id);
    if (from !== 'store') {
      const [state] = await db
        .select({ note: tagRules.pastNote })
        .from(tagRules)
        .where(eq(tagRules.id, rule!.id));
      throw new Error(
        `The rule of "${name}" (${query}) was not written from the store: ${state?.note ?? from}`,
      );
    }
    ruleIds.push(rule!.id);
  }
  const written = seconds(began);
  await service.catchUp(1_800_000);
  const { rows } = await db.execute<{ rows: string; posts: string }>(
    sql`SELECT count(*)::text AS rows, count(DISTINCT post_id)::text AS posts FROM post_tag_rows
      WHERE rule_id = ANY(${`{${ruleIds.join(',')}}`}::uuid[])`,
  );
  const counted = rows[0];
  console.log(
    `Category "Topics": ${RULES.length} tags set by rules on ${Number(counted!.posts).toLocaleString('en-US')} posts ` +
      `(${Number(counted!.rows).toLocaleString('en-US')} rows), written in ${written}, in the store's figures after ` +
      `${seconds(began)}.`,
  );
  return category!.id;
}
