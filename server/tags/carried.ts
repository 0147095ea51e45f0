// Which rows of post_tags (alias `pt`; a rule's past matches too, kept by range of posts: migration 0057) make a post
// carry their tag (migration 0042): a manual row not removed, or a rule's row of a post without a manual row for the
// tag. One text, read by the tags' own queries (store.ts: a post's chips) and by the analytics store's feed and
// rebuild (server/analytics/rows.ts), so that the chips and every figure
// (the dashboards', the settings' counts) agree. A manual row is found by `manual_tag_id` (the tag on a manual row,
// null on a rule's: migration 0049), so by the manual rows' index, one look-up a rule row; by `tag_id` and `rule_id IS
// NULL` PostgreSQL read every manual row of every workspace into a hash first.
export const CARRIED_WHERE = `NOT pt.removed AND (pt.rule_id IS NULL OR NOT EXISTS (SELECT 1 FROM post_tags m
  WHERE m.manual_tag_id = pt.tag_id AND m.post_id = pt.post_id))`;

/**
 * The tag rows of the posts `ids` (SQL of a `bigint[]`), as the FROM item `pt`: their manual rows by the posts'
 * index, which holds the manual rows only (migration 0055: a rule's row costs one index entry fewer to write), their
 * rules' rows by `post_tags_rule_idx`, (rule, post), and their rules' past matches, kept by range of posts
 * (`rule_post_range_rows`, migration 0057): the rules `rules` (SQL of a `uuid[]`, a workspace's), or every rule,
 * PostgreSQL 18 skipping from rule to rule in the index (a skip scan). The arrays are read behind a sub-select:
 * planning with 200,000 ids as constants took 0.3-0.7 s (the feed's rounds), and chose a scan of the whole table.
 */
/** post_tags's columns in the order of `rule_post_range_rows` (its manual_tag_id was added last: migration 0049). */
const COLUMNS = 'workspace_id, post_id, tag_id, set_by, rule_id, manual_tag_id, removed, user_id, set_at';

export const ofPosts = (ids: string, rules?: string) => {
  const posts = `post_id = ANY ((SELECT ${ids})::bigint[])`;
  const ruled = rules ? `rule_id = ANY ((SELECT ${rules})::uuid[])` : 'rule_id IS NOT NULL';
  const ranged = `rule_post_range_rows((SELECT ${ids})::bigint[]${rules ? `, (SELECT ${rules})::uuid[]` : ''})`;
  return `(SELECT ${COLUMNS} FROM post_tags WHERE rule_id IS NULL AND ${posts}
    UNION ALL SELECT ${COLUMNS} FROM post_tags WHERE ${ruled} AND ${posts}
    UNION ALL SELECT * FROM ${ranged}) pt`;
};
