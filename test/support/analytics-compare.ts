// What the analytics store holds against PostgreSQL, id by id: every post once with its likes, author and as many
// lexemes as PostgreSQL has, and in the token table exactly the rows of its current tokens (lexemes, hashtags,
// mentions, grams: none left from an earlier version of the post); every profile once with its followers. Nothing
// missing, nothing doubled.
import type pg from 'pg';
import { STORE_DATABASE } from '@server/analytics/layout';
import { POST_TOKENS } from '@server/analytics/rows';
import type { AnalyticsStore } from '@server/analytics/store';

export interface Holdings {
  posts: Record<string, string>;
  profiles: Record<string, string>;
}

const byId = (rows: { id: string; v: string }[]) => Object.fromEntries(rows.map((row) => [row.id, row.v]));

export async function postgresHoldings(pool: pg.Pool): Promise<Holdings> {
  const posts = await pool.query<{ id: string; v: string }>(
    `SELECT id::text, concat_ws(' ', 1, author_id, likes, length(search)) AS v FROM posts`,
  );
  const profiles = await pool.query<{ id: string; v: string }>(
    `SELECT id::text, concat_ws(' ', 1, followers) AS v FROM profiles`,
  );
  return { posts: byId(posts.rows), profiles: byId(profiles.rows) };
}

export async function storeHoldings(store: AnalyticsStore): Promise<Holdings> {
  const db = STORE_DATABASE;
  const posts = await store.query<{ id: string; v: string }>(
    `SELECT toString(p.id) AS id,
       concat(toString(p.n), ' ', p.author, ' ', p.likes, ' ', toString(p.lexemes),
         if(coalesce(t.n, 0) = p.tokens, '', concat(' token rows ', toString(coalesce(t.n, 0)), ' of ', toString(p.tokens)))) AS v
     FROM (SELECT id, count() AS n, toString(any(author_id)) AS author, toString(any(likes)) AS likes,
         any(length(toks)) AS lexemes, sum(length(${POST_TOKENS})) AS tokens
       FROM ${db}.posts GROUP BY id) p
     LEFT JOIN (SELECT post, count() AS n FROM ${db}.tok GROUP BY post) t ON t.post = p.id`,
  );
  const orphans = await store.query<{ n: string }>(
    `SELECT count() AS n FROM ${db}.tok WHERE post NOT IN (SELECT id FROM ${db}.posts)`,
  );
  const profiles = await store.query<{ id: string; v: string }>(
    `SELECT toString(id) AS id, concat(toString(count()), ' ', toString(any(followers))) AS v
     FROM ${db}.profiles GROUP BY id`,
  );
  const held = { posts: byId(posts), profiles: byId(profiles) };
  if (Number(orphans[0]!.n) > 0) held.posts.orphanTokens = orphans[0]!.n;
  return held;
}
