// corpus:check's comparison of the tags (docs/tags.md, "Tags in the analytics store"): the store's `post_tags` against
// the (tag, post) pairs PostgreSQL says the posts carry (tagRowsSql: CARRIED_WHERE, manual over rules), in the check's
// snapshot and at its outbox position (check.ts). Per tag, the count and an md5 of its posts in order; for a tag that
// differs, its posts one by one: carried but missing from the store, held by the store but not carried, or held more
// than once. The repair feeds the posts that differ through the change feed again (corpus_tags_changed, migration
// 0044), whose batch the applier applies by putting the tags those posts carry now in place of the store's.
import type pg from 'pg';
import { tagLabel } from '@contract/tags';
import { STORE_DATABASE } from './layout';
import { tagRowsSql } from './rows';
import type { StoreReading } from './state';

/** A (tag, post) pair one side holds otherwise than the other. */
interface TagDifference {
  tag: string;
  post: number;
  /** Whether PostgreSQL says the post carries the tag. */
  carried: boolean;
  /** How many rows of the pair the store holds (1 where it should; 0 missing; 2 or more doubled). */
  held: number;
}

/** The tags' comparison: pairs carried in PostgreSQL, and those that differ (with the differing tags' names). */
export interface TagCheck {
  pairs: number;
  differences: TagDifference[];
  /** "Category › Tag" of each differing tag PostgreSQL still has, by id. */
  names: Map<string, string>;
}

const CARRIED = `(${tagRowsSql('true')}) x`;
// Each tag's posts in numeric order, on both sides.
const PG_TAGS = `SELECT x.tag, count(*)::text AS n, md5(string_agg(x.post, ',' ORDER BY x.post::bigint)) AS hash
  FROM ${CARRIED} GROUP BY x.tag`;
const STORE_TAGS = `SELECT toString(tag) AS tag, toString(count()) AS n,
    lower(hex(MD5(arrayStringConcat(arrayMap(p -> toString(p), arraySort(groupArray(post))), ',')))) AS hash
  FROM ${STORE_DATABASE}.post_tags GROUP BY tag`;

/** The posts of `tag` that differ: PostgreSQL's carried posts (in the snapshot) against the store's rows. */
async function postsOfTag(
  client: pg.ClientBase,
  reading: StoreReading,
  tag: string,
): Promise<TagDifference[]> {
  const { rows: carried } = await client.query<{ post: string }>(
    `SELECT x.post FROM (${tagRowsSql('pt.tag_id = $1::uuid')}) x`,
    [tag],
  );
  const held = await reading.store.query<{ post: string; n: string }>(
    `SELECT toString(post) AS post, toString(count()) AS n FROM ${STORE_DATABASE}.post_tags
     WHERE tag = {tag:UUID} GROUP BY post`,
    { tag },
  );
  const rows = new Map(held.map((row) => [row.post, Number(row.n)]));
  const differences: TagDifference[] = [];
  for (const { post } of carried) {
    const n = rows.get(post) ?? 0;
    rows.delete(post);
    if (n !== 1) differences.push({ tag, post: Number(post), carried: true, held: n });
  }
  for (const [post, n] of rows) differences.push({ tag, post: Number(post), carried: false, held: n });
  return differences;
}

/** Compares the tags in the caller's snapshot (`client`) with the store's `reading` (see the top of this file). */
export async function checkTags(client: pg.ClientBase, reading: StoreReading): Promise<TagCheck> {
  const postgres = (await client.query<{ tag: string; n: string; hash: string }>(PG_TAGS)).rows;
  const store = await reading.store.query<{ tag: string; n: string; hash: string }>(STORE_TAGS);
  const theirs = new Map(store.map((row) => [row.tag, row]));
  const differing = new Set<string>();
  for (const row of postgres) {
    const there = theirs.get(row.tag);
    theirs.delete(row.tag);
    if (there?.n !== row.n || there.hash !== row.hash) differing.add(row.tag);
  }
  for (const tag of theirs.keys()) differing.add(tag);
  const differences: TagDifference[] = [];
  for (const tag of [...differing].sort()) differences.push(...(await postsOfTag(client, reading, tag)));
  differences.sort((a, b) => a.post - b.post || a.tag.localeCompare(b.tag));
  const names = new Map<string, string>();
  if (differing.size) {
    const { rows } = await client.query<{ id: string; category: string; name: string }>(
      `SELECT t.id::text AS id, c.name AS category, t.name FROM tags t JOIN tag_categories c ON c.id = t.category_id
       WHERE t.id = ANY($1::uuid[])`,
      [[...differing]],
    );
    for (const row of rows) names.set(row.id, tagLabel(row.category, row.name));
  }
  return { pairs: postgres.reduce((sum, row) => sum + Number(row.n), 0), differences, names };
}

/** The posts whose tags differ, ascending. */
export const differingTagPosts = (check: TagCheck): number[] =>
  [...new Set(check.differences.map((difference) => difference.post))].sort((a, b) => a - b);

const SHOWN = 10;

/** The tags' differences in one sentence, or null when there are none. */
export function describeTagCheck(check: TagCheck): string | null {
  const { differences, names } = check;
  if (!differences.length) return null;
  const named = (tag: string) => (names.has(tag) ? `"${names.get(tag)}"` : `${tag} (no longer a tag)`);
  const shown = differences
    .slice(0, SHOWN)
    .map(({ tag, post, carried, held }) =>
      carried && held === 0
        ? `post ${post} carries ${named(tag)} in PostgreSQL, not in the store`
        : !carried
          ? `post ${post} carries ${named(tag)} in the store, not in PostgreSQL`
          : `post ${post} holds ${named(tag)} ${held} times in the store`,
    );
  const more = differences.length > SHOWN ? '; …' : '';
  return `tags: ${differences.length.toLocaleString('en-US')} (tag, post) pairs differ (${shown.join('; ')}${more}).`;
}
