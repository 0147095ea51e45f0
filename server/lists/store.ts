// A workspace's lists in the database: the lists a query of the workspace reads (loadQueryLists, read at every place
// a saved or typed query is evaluated for the workspace), rows to responses, each item checked against its kind, and
// who reads a list (saved queries, tags' rules).
import { and, asc, eq, sql } from 'drizzle-orm';
import type { QueryListResponse } from '@contract/lists';
import { tagLabel } from '@contract/tags';
import { queryLists } from '@server/db/lists-schema';
import { savedQueries } from '@server/db/social-schema';
import { tagCategories, tagRules, tags } from '@server/db/tags-schema';
import { ApiError } from '@server/errors';
import type { Executor } from '@server/workspaces/access';
import { toUnixSeconds } from '@server/workspaces/access';
import {
  expandLists,
  listNames,
  parseQuery,
  QuerySyntaxError,
  type ListKind,
  type QueryLists,
} from '@server/query/index';
import { parseOrThrow } from '@server/query/invalid-query';
import { listItemNode } from '@server/query/lists';

type Row = typeof queryLists.$inferSelect;

export const listNotFound = (name: string) =>
  new ApiError(404, 'list_not_found', `No list named ${name} in this workspace.`);

/** Below the writing routes' minimum (managers; see server/workspaces/route-access.ts). */
export const listsDenied = () => new ApiError(403, 'forbidden', 'Only owners and managers can change lists.');

export async function listRows(db: Executor, workspaceId: string): Promise<Row[]> {
  return db
    .select()
    .from(queryLists)
    .where(eq(queryLists.workspaceId, workspaceId))
    .orderBy(asc(queryLists.name));
}

/** The workspace's lists as the query language reads them, now. */
async function loadQueryLists(db: Executor, workspaceId: string): Promise<QueryLists> {
  const rows = await db
    .select({ name: queryLists.name, kind: queryLists.kind, items: queryLists.items })
    .from(queryLists)
    .where(eq(queryLists.workspaceId, workspaceId));
  return new Map(rows.map((row) => [row.name, { kind: row.kind as ListKind, items: row.items }]));
}

/**
 * The lists a query of the workspace may read: read only when its text names a list (most do not: no read). What a
 * query is evaluated with, at every place a saved or typed query is compiled for a workspace.
 */
export async function listsFor(db: Executor, workspaceId: string, text: string): Promise<QueryLists> {
  return /list\(/i.test(text) ? loadQueryLists(db, workspaceId) : new Map();
}

/**
 * A workspace's query text parsed (`tree`, printed as its canonical text) and with its lists expanded (`ast`, what the
 * store matches); null for an empty or blank text: every post. The workspace's lists as they are now (an edited list
 * changes the answer).
 */
export async function parsedQuery(db: Executor, workspaceId: string, text: string) {
  const lists = await listsFor(db, workspaceId, text);
  const tree = text.trim() === '' ? null : parseOrThrow(text, lists);
  return { tree, ast: tree && expandLists(tree, lists) };
}

/** For each list name, the names of the workspace's saved queries that read it. */
export async function listUsers(db: Executor, workspaceId: string): Promise<Map<string, string[]>> {
  const saved = await db
    .select({ name: savedQueries.name, query: savedQueries.query })
    .from(savedQueries)
    .where(eq(savedQueries.workspaceId, workspaceId))
    .orderBy(asc(savedQueries.name));
  const users = new Map<string, string[]>();
  for (const query of saved) {
    const parsed = parseQuery(query.query);
    if (!parsed.ok) continue;
    for (const name of listNames(parsed.ast)) users.set(name, [...(users.get(name) ?? []), query.name]);
  }
  return users;
}

/** Each item checked against the kind (400 invalid_list_item for the first that is not one), duplicates dropped. */
export function checkedItems(kind: ListKind, items: readonly string[]): string[] {
  items.forEach((item, index) => {
    try {
      listItemNode(kind, item);
    } catch (error) {
      if (!(error instanceof QuerySyntaxError)) throw error;
      throw new ApiError(400, 'invalid_list_item', `Item ${index + 1}: ${error.message}.`);
    }
  });
  return [...new Set(items)];
}

export function toListResponse(row: Row, users: Map<string, string[]>): QueryListResponse {
  return {
    name: row.name,
    kind: row.kind as ListKind,
    items: row.items,
    used_by: users.get(row.name) ?? [],
    updated_at: toUnixSeconds(row.updatedAt),
  };
}

/** The tags ("Category › Tag") whose rules read the list `name`: a list a rule reads cannot be deleted. */
export async function tagsReadingList(db: Executor, workspaceId: string, name: string): Promise<string[]> {
  const rows = await db
    .select({ query: tagRules.query, tag: tags.name, category: tagCategories.name })
    .from(tagRules)
    .innerJoin(tags, eq(tags.id, tagRules.tagId))
    .innerJoin(tagCategories, eq(tagCategories.id, tags.categoryId))
    .where(and(eq(tagRules.workspaceId, workspaceId), sql`${tagRules.query} ~* 'list\\('`));
  const readers = rows.filter((row) => {
    const parsed = parseQuery(row.query);
    return parsed.ok && listNames(parsed.ast).includes(name);
  });
  return [...new Set(readers.map((row) => tagLabel(row.category, row.tag)))].sort();
}
