-- A rule's past matches are written by the hundred thousand (issue 55, item 4; docs/tags.md), and the entry a row in
-- this index, a workspace's text then the post, cost 30 % of their write (1M rows: 5.6 s with it, 3.9 s without). A
-- workspace's rows are found by its rules and its tags (post_tags_rule_idx, post_tags_manual_idx), a page of posts'
-- by the posts (post_tags_post_idx).
DROP INDEX "post_tags_workspace_post_idx";
