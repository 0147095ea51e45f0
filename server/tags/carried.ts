// Which rows of post_tags (alias `pt`) make a post carry their tag (migration 0042): a manual row not removed, or a
// rule's row of a post without a manual row for the tag. One text, read by the tags' own queries (store.ts) and by the
// analytics store's feed and rebuild (server/analytics/rows.ts), so that the settings' counts and the dashboards'
// refinements agree.
export const CARRIED_WHERE = `NOT pt.removed AND (pt.rule_id IS NULL OR NOT EXISTS (SELECT 1 FROM post_tags m
  WHERE m.tag_id = pt.tag_id AND m.post_id = pt.post_id AND m.rule_id IS NULL))`;
