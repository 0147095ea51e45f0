// Which rows of post_tags (alias `pt`) make a post carry their tag (migration 0042): a manual row not removed, or a
// rule's row of a post without a manual row for the tag. One text, read by the tags' own queries (store.ts: a post's
// chips) and by the analytics store's feed and rebuild (server/analytics/rows.ts), so that the chips and every figure
// (the dashboards', the settings' counts) agree. A manual row is found by `manual_tag_id` (the tag on a manual row,
// null on a rule's: migration 0049), so by the manual rows' index, one look-up a rule row; by `tag_id` and `rule_id IS
// NULL` PostgreSQL read every manual row of every workspace into a hash first.
export const CARRIED_WHERE = `NOT pt.removed AND (pt.rule_id IS NULL OR NOT EXISTS (SELECT 1 FROM post_tags m
  WHERE m.manual_tag_id = pt.tag_id AND m.post_id = pt.post_id))`;
