// One dashboard request resolved: the query (a saved one or ad hoc), the filters, the date range, the refinements and
// the workspace's time zone and its sentiment corrections. Every dashboard reads its request as an InsightScope.
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { InsightsBody, Refine } from '@contract/insights';
import { queryFiltersSchema, type QueryFilters } from '@contract/social-scope';
import type { Db } from '@server/db/database';
import { savedQueries } from '@server/db/social-schema';
import { tagCategories, tags } from '@server/db/tags-schema';
import { tagLabel } from '@contract/tags';
import { tagNotFound } from '@server/tags/store';
import { ApiError } from '@server/errors';
import { printQuery } from '@server/query/index';
import { parsedQuery } from '@server/lists/store';
import { resolveScope, type Scope } from '../scope';
import { namedRange, type NamedRange } from '../cursor-range';
import { usableTimeZone } from '@contract/zoned-time';
import { loadCorrections, type Corrections } from '../corrections';
import { checkRefines } from './refine';

export interface InsightScope {
  scope: Scope;
  /** The range the request (with its saved query's filters) names, before defaults: what a cursor is checked by. */
  namedRange: NamedRange;
  /** Canonical query text, null for every post. */
  normalized: string | null;
  savedQueryName: string | null;
  refines: Refine[];
  timeZone: string;
  /** The workspace's sentiment corrections (server/social/corrections.ts), counted in every figure. */
  corrections: Corrections;
  /** The names of the tags the refinements name ("Complaint type › Outage"), by id: what the counted sentence says. */
  tagNames?: ReadonlyMap<string, string>;
  /**
   * Identifies the names of the workspace's tags and categories as they are now: part of the answer cache's key, since
   * an answer names tags (its posts' chips, the counted sentence) and a rename changes no post, so no corpus version.
   */
  tagNamesDigest?: string;
  /** Set when the range reached further back than the plan's history and its start was moved (clipToHistory). */
  historyClip?: HistoryClip | null;
  /**
   * The workspace whose tags the answer's posts show (each post's `tags`): the member's own; unset where an answer
   * shows none (a shared link's: a tag is the team's word for a post).
   */
  tagsOf?: string;
}

export interface HistoryClip {
  /** The start asked for (ISO 8601, UTC). */
  requested_from: string;
  history_days: number;
}

/**
 * The plan's history limit on a dashboard's range: a start further back than `start` is moved to it (and the answer
 * says so); a range that ends before it has nothing the plan may show, and is refused with history_limit.
 */
export function clipToHistory(
  context: InsightScope,
  start: Date | null,
  historyDays: number | null,
  planName: string,
): InsightScope {
  if (start === null || historyDays === null || context.scope.from >= start) return context;
  if (context.scope.to <= start) {
    throw new ApiError(
      409,
      'history_limit',
      `This range ends before the ${historyDays} days of history the ${planName} plan keeps. Choose a later ` +
        'range, or an owner can upgrade the plan in Settings › Plan.',
    );
  }
  return {
    ...context,
    scope: { ...context.scope, from: start },
    historyClip: { requested_from: context.scope.from.toISOString(), history_days: historyDays },
  };
}

/**
 * The request of a member of the workspace (the route-access hook has checked membership and passes the workspace):
 * the saved query of that workspace (404 for another's), the query parsed, the scope, the refinements, the zone.
 */
export async function resolveInsightScope(
  db: Db,
  workspace: { timeZone: string },
  body: InsightsBody,
  now = new Date(),
  /** The workspace's corrections when the caller has read them already (for several requests of one workspace). */
  loaded?: Corrections,
): Promise<InsightScope> {
  const hasSaved = body.saved_query_id !== undefined;
  if (hasSaved === (body.query !== undefined)) {
    throw new ApiError(400, 'invalid_request', 'Pass either saved_query_id or query (not both).');
  }
  let text = body.query ?? '';
  let savedFilters: QueryFilters = {};
  let savedQueryName: string | null = null;
  if (hasSaved) {
    const [saved] = await db
      .select({ name: savedQueries.name, query: savedQueries.query, filters: savedQueries.filters })
      .from(savedQueries)
      .where(and(eq(savedQueries.id, body.saved_query_id!), eq(savedQueries.workspaceId, body.workspace_id)));
    if (!saved) throw new ApiError(404, 'not_found', 'There is no such saved query in this workspace.');
    text = saved.query;
    savedQueryName = saved.name;
    const parsed = queryFiltersSchema.safeParse(saved.filters);
    savedFilters = parsed.success ? parsed.data : {};
  }
  const { tree, ast } = await parsedQuery(db, body.workspace_id, text);
  const overrides = Object.fromEntries(Object.entries(body.filters ?? {}).filter(([, v]) => v !== undefined));
  const filters = { ...savedFilters, ...overrides };
  const scope = resolveScope(ast, filters, now);
  const timeZone = usableTimeZone(workspace.timeZone);
  const refines = body.refine ?? [];
  checkRefines(refines, timeZone);
  const [corrections, tagNames, tagNamesDigest] = await Promise.all([
    loaded ?? loadCorrections(db, body.workspace_id),
    refinedTags(db, body.workspace_id, refines),
    tagNamesDigestOf(db, body.workspace_id),
  ]);
  return {
    scope,
    namedRange: namedRange(filters),
    normalized: tree ? printQuery(tree) : null,
    savedQueryName,
    refines,
    timeZone,
    corrections,
    ...(tagNames.size && { tagNames }),
    tagNamesDigest,
    tagsOf: body.workspace_id,
  };
}

/** An md5 of every tag's id, category and name in the workspace: '' when it has none. One row, by the tags' index. */
async function tagNamesDigestOf(db: Db, workspaceId: string): Promise<string> {
  const named = sql`json_build_array(${tags.id}, ${tagCategories.name}, ${tags.name})::text`;
  const [row] = await db
    .select({ digest: sql<string | null>`md5(string_agg(${named}, E'\n' ORDER BY ${tags.id}))` })
    .from(tags)
    .innerJoin(tagCategories, eq(tagCategories.id, tags.categoryId))
    .where(eq(tags.workspaceId, workspaceId));
  return row?.digest ?? '';
}

/** The names of the tags the refinements name, each a tag of the workspace (404 tag_not_found otherwise). */
async function refinedTags(db: Db, workspaceId: string, refines: Refine[]): Promise<Map<string, string>> {
  const ids = [...new Set(refines.flatMap((refine) => (refine.field === 'tag' ? refine.values : [])))];
  if (!ids.length) return new Map();
  const rows = await db
    .select({ id: tags.id, name: tags.name, category: tagCategories.name })
    .from(tags)
    .innerJoin(tagCategories, eq(tagCategories.id, tags.categoryId))
    .where(and(eq(tags.workspaceId, workspaceId), inArray(tags.id, ids)));
  if (rows.length !== ids.length) throw tagNotFound();
  return new Map(rows.map((row) => [row.id, tagLabel(row.category, row.name)]));
}
