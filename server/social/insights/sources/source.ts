// The data sources of the dashboards, behind one interface, and the predicates their answers are made of. The sources
// are the posts themselves (posts-scan.ts), each author's post times (author-times.ts: author_post_times) and the
// rollups (rollups.ts: post_hours, post_days, post_tag_days). Each source but the posts, which serve every request,
// says through `serves` whether its rows give a request's figures exactly, and how; every source gives its figures as
// SQL, named the same in each source that has them (overviewAuthors, overviewGroups, performanceGroups,
// conversationTags, authorFigures, postPage). Each dashboard chooses among them in one function of its own module,
// with the reason beside the choice.
import type { SQL } from 'drizzle-orm';
import type { RefineField } from '@contract/insights';
import { readsOnlyPlatformAndLanguage } from '@server/query/analysis';
import type { InsightScope } from '../request';

export interface Source<Plan> {
  /**
   * How it gives this request's figures exactly (what the dashboard's statements need to read it), or null when its
   * rows do not keep what the request reads, or reading it would cost more than reading the posts.
   */
  serves(context: InsightScope): Plan | null;
}

/**
 * Whether a source whose rows keep a post's platform and language (and the date, at some grain) serves the condition:
 * the query reads only platform: and lang: (query/analysis.ts), and every refinement is one of `kept`.
 */
export const keepsCondition = (context: InsightScope, kept: readonly RefineField[]) =>
  readsOnlyPlatformAndLanguage(context.scope.query) &&
  context.refines.every((refine) => kept.includes(refine.field));

/**
 * The overview's timeline as a source gives it: a WITH clause ending in `g`, one row per (wall-clock bucket `local`,
 * platform) with posts n, engagement e, posts per sentiment label pos, neu, neg and the sum of sentiment s; and the
 * statement of the top posts' ids (by engagement, then the higher id).
 */
export interface OverviewGroups {
  groups: SQL;
  topPosts: SQL;
}
