// A workspace's named lists (issue 55): authors, sites or words a query reads by name (`author:list(competitors)`,
// `site:list(press)`, `list(misspellings)`; server/query/lists.ts). Items are stored as entered and checked against
// their kind when saved; a query reads the current items each time it is evaluated.
import { sql } from 'drizzle-orm';
import { check, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users, workspaces } from './schema';

export const queryLists = pgTable(
  'query_lists',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** Lower-case letters, digits, _ and -, 1 to 40 (LIST_NAME). */
    name: text('name').notNull(),
    /** authors, sites or words; fixed at creation (the queries that read the list name its kind). */
    kind: text('kind').notNull(),
    items: text('items')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.workspaceId, table.name] }),
    check('query_lists_kind_check', sql`${table.kind} IN ('authors', 'sites', 'words')`),
    check('query_lists_name_check', sql`${table.name} ~ '^[a-z0-9_-]{1,40}$'`),
    check('query_lists_items_check', sql`cardinality(${table.items}) <= 1000`),
  ],
);
