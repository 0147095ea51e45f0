// A fingerprint of the corpus's content (not of its surrogate ids): equal corpora give equal digests.
import type pg from 'pg';

export interface CorpusChecksum {
  profiles: number;
  posts: number;
  /** md5 over every post (with its author's external id) and every profile, in a fixed order. */
  digest: string;
}

const PROFILE_ROW = `concat_ws('|', platform, external_id, handle, display_name, followers, following, verified, bio,
  country, language, avatar_url)`;
const POST_ROW = `concat_ws('|', p.platform, p.external_id, a.external_id, p.text, p.language,
  extract(epoch from p.posted_at), p.kind, p.media, p.likes, p.comments, p.shares, p.views, p.url, p.hashtags::text,
  p.mentions::text, p.domains::text, p.sentiment, p.sentiment_label, p.engagement)`;

export async function corpusChecksum(pool: pg.Pool | pg.PoolClient): Promise<CorpusChecksum> {
  const { rows } = await pool.query<{ profiles: string; posts: string; digest: string | null }>(
    `SELECT (SELECT count(*) FROM profiles) AS profiles,
            (SELECT count(*) FROM posts) AS posts,
            md5(coalesce((SELECT string_agg(md5(${PROFILE_ROW}), '' ORDER BY platform, external_id) FROM profiles), '')
              || coalesce((SELECT string_agg(md5(${POST_ROW}), '' ORDER BY p.platform, p.external_id)
                           FROM posts p JOIN profiles a ON a.id = p.author_id), '')) AS digest`,
  );
  const row = rows[0]!;
  return { profiles: Number(row.profiles), posts: Number(row.posts), digest: row.digest ?? '' };
}
