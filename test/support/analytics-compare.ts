// What the analytics store holds against PostgreSQL, id by id: every post once with its likes, author and as many
// distinct words as the reference tokenizer finds in its text (test/support/reference/tokens.ts), in the token table
// exactly the rows of its current tokens (words, hashtags, mentions, grams: none left from an earlier version of the
// post) each with its current author, likes and tags, in the sample-ordered copy one row of its current likes, and in
// the texts one row when it has grams; every profile once with its followers and its handle lower-cased as the
// reference lowers it. Nothing missing, nothing doubled.
import type pg from 'pg';
import { STORE_DATABASE } from '@server/analytics/layout';
import { POST_TOKENS } from '@server/analytics/rows';
import type { AnalyticsStore } from '@server/analytics/store';
import { lower, words } from './reference/tokens';

export interface Holdings {
  posts: Record<string, string>;
  profiles: Record<string, string>;
}

const byId = (rows: { id: string; v: string }[]) => Object.fromEntries(rows.map((row) => [row.id, row.v]));

export async function postgresHoldings(pool: pg.Pool): Promise<Holdings> {
  const posts = await pool.query<{ id: string; v: string; text: string }>(
    `SELECT id::text, concat_ws(' ', 1, author_id, likes) AS v, text FROM posts`,
  );
  const profiles = await pool.query<{ id: string; v: string; handle: string }>(
    `SELECT id::text, concat_ws(' ', 1, followers) AS v, handle FROM profiles`,
  );
  return {
    posts: byId(posts.rows.map((row) => ({ id: row.id, v: `${row.v} ${new Set(words(row.text)).size}` }))),
    profiles: byId(profiles.rows.map((row) => ({ id: row.id, v: `${row.v} ${lower(row.handle)}` }))),
  };
}

export async function storeHoldings(store: AnalyticsStore): Promise<Holdings> {
  const db = STORE_DATABASE;
  // A post's token rows carry its author and likes (layout 4) and its tags (layout 7: its hashtags, mentions and
  // domains in one list), and its sample-ordered copy is one row of its likes.
  const posts = await store.query<{ id: string; v: string }>(
    `SELECT toString(p.id) AS id,
       concat(toString(p.n), ' ', p.author, ' ', p.likes, ' ', toString(p.lexemes),
         if(coalesce(t.n, 0) = p.tokens, '', concat(' token rows ', toString(coalesce(t.n, 0)), ' of ', toString(p.tokens))),
         if(coalesce(t.n, 0) = 0 OR (t.columns = 1 AND t.t_author = p.author AND t.t_likes = p.likes
             AND t.t_tags = p.tags), '',
           ' token rows carry other columns'),
         if(s.n = 1 AND s.s_likes = p.likes, '', concat(' sampled ', toString(coalesce(s.n, 0)), ' ', s.s_likes)),
         if(coalesce(x.n, 0) = if(p.scripts = 0, 0, 1) AND (x.n = 0 OR x.ts = p.ts), '',
           concat(' texts ', toString(coalesce(x.n, 0))))) AS v
     FROM (SELECT id, count() AS n, toString(any(author_id)) AS author, toString(any(likes)) AS likes,
         any(length(ptoks)) AS lexemes, sum(length(${POST_TOKENS})) AS tokens, any(scripts) AS scripts, any(ts) AS ts,
         toString(any(tags)) AS tags
       FROM ${db}.posts GROUP BY id) p
     LEFT JOIN (SELECT post, count() AS n, uniqExact(author_id, likes, tags) AS columns,
         toString(any(author_id)) AS t_author, toString(any(likes)) AS t_likes, toString(any(tags)) AS t_tags
       FROM ${db}.tok GROUP BY post) t ON t.post = p.id
     LEFT JOIN (SELECT id, count() AS n, toString(any(likes)) AS s_likes FROM ${db}.posts_sampled GROUP BY id) s
       ON s.id = p.id
     LEFT JOIN (SELECT id, count() AS n, any(ts) AS ts FROM ${db}.texts GROUP BY id) x ON x.id = p.id`,
  );
  const orphans = await store.query<{ n: string }>(
    `SELECT (SELECT count() FROM ${db}.tok WHERE post NOT IN (SELECT id FROM ${db}.posts))
       + (SELECT count() FROM ${db}.posts_sampled WHERE id NOT IN (SELECT id FROM ${db}.posts))
       + (SELECT count() FROM ${db}.texts WHERE id NOT IN (SELECT id FROM ${db}.posts)) AS n`,
  );
  const profiles = await store.query<{ id: string; v: string }>(
    `SELECT toString(id) AS id, concat(toString(count()), ' ', toString(any(followers)), ' ', any(lhandle)) AS v
     FROM ${db}.profiles GROUP BY id`,
  );
  const held = { posts: byId(posts), profiles: byId(profiles) };
  if (Number(orphans[0]!.n) > 0) held.posts.orphanTokens = orphans[0]!.n;
  return held;
}
