// A workspace's named lists (internal API): authors, sites or words a query reads by name, as
// `author:list(competitors)`, `site:list(press)` or `list(misspellings)` (server/query/README.md).
import * as z from 'zod/mini';
import { storableText } from './text';
import { workspaceIdSchema } from './workspaces';

export const LIST_KINDS = ['authors', 'sites', 'words'] as const;
export const MAX_LIST_ITEMS = 1000;
const MAX_ITEM_LENGTH = 200;

/** Lower-case letters, digits, _ and -, 1 to 40 characters: how a query names the list. */
const listNameSchema = z
  .string()
  .check(z.regex(/^[a-z0-9_-]{1,40}$/, { error: 'Use 1 to 40 lower-case letters, digits, _ or -' }));

/**
 * Each item trimmed and checked against the kind when saved (a handle for authors, a domain or address for sites, a
 * word or a phrase for words); 400 invalid_list_item names the first that is not. Duplicates are kept once.
 */
const itemsSchema = z
  .array(storableText().check(z.trim(), z.minLength(1), z.maxLength(MAX_ITEM_LENGTH)))
  .check(z.minLength(1), z.maxLength(MAX_LIST_ITEMS));

export const createListBodySchema = z.strictObject({
  name: listNameSchema,
  kind: z.enum(LIST_KINDS),
  items: itemsSchema,
});

/** A list's items, replaced as a whole; its name and kind stay (the queries that read it name them). */
export const updateListBodySchema = z.strictObject({ items: itemsSchema });

export const listParamsSchema = z.object({ id: workspaceIdSchema, name: listNameSchema });

export const listResponseSchema = z.object({
  name: z.string(),
  kind: z.enum(LIST_KINDS),
  items: z.array(z.string()),
  /** The names of the workspace's saved queries that read the list. */
  used_by: z.array(z.string()),
  /** Unix seconds. */
  updated_at: z.int(),
});
export type QueryListResponse = z.infer<typeof listResponseSchema>;

export const listsResponseSchema = z.object({ lists: z.array(listResponseSchema) });
export type QueryListsResponse = z.infer<typeof listsResponseSchema>;
