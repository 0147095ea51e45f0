// Sentiment corrections: a person (an owner or a manager) sets a post's sentiment in one workspace, and from then on
// every figure of that workspace counts the post with that label and with the label's score (1, 0 or -1) instead of
// the lexicon's estimate; other workspaces still see the estimate. The corrections are rows of their own
// (sentiment_corrections), never written into the post, so re-imports and collectors that update the post leave
// them alone. A correction also holds for the post's near-duplicates (the posts of the corpus with the same text key,
// posts.text_key: reposts and copies of its text with other links, mentions, case, punctuation or spacing), past ones
// and those that arrive later, since the key is matched when corrections are read: each is counted as inherited from
// the corrected post, an explicit correction of it wins, the latest correction of a key when two differ, and an undo
// takes back what it gave. They are read once per dashboard request (loadCorrections) and travel with the request's
// InsightScope: the analytics store is given them as bound arrays with each statement
// (server/analytics/figures/scope.ts), so a rebuilt store needs nothing of them. The answer cache keys answers by their
// digest. A workspace keeps at most SENTIMENT_CORRECTIONS_LIMIT of them, and INHERITED_LIMIT near-duplicates.
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { CORRECTED_SCORE, type SentimentAgreementResponse } from '@contract/sentiment-corrections';
import type { SentimentCorrection, SocialPost } from '@contract/social-posts';
import type { Db } from '@server/db/database';
import { personName } from '@server/users/person-name';

export type SentimentLabel = SocialPost['sentiment_label'];

/** The score a corrected post counts with in averages. */
const LABEL_SCORE: Record<SentimentLabel, number> = CORRECTED_SCORE;

/**
 * The most near-duplicates a workspace's corrections give (the most recent posts first): each one is an element of the
 * arrays every dashboard statement of the workspace carries, as an explicit correction is.
 */
const INHERITED_LIMIT = 10_000;

interface Correction {
  label: SentimentLabel;
  /** The corrected post this post has the same text as (inherited), or null for a post corrected itself. */
  inheritedFrom: number | null;
  correctedBy: string | null;
  /** ISO 8601, UTC. */
  correctedAt: string;
}

/** One workspace's corrections, as a request reads them. */
export interface Corrections {
  byId: ReadonlyMap<number, Correction>;
  /** The post ids counted with each label: corrected, or inheriting a correction. */
  ids: Record<SentimentLabel, number[]>;
  /** Identifies the set (ids, labels, who and when): '' for none. Part of the answer cache's key. */
  digest: string;
}

export const NO_CORRECTIONS: Corrections = {
  byId: new Map(),
  ids: { positive: [], neutral: [], negative: [] },
  digest: '',
};

/**
 * The workspace's corrections and the near-duplicates that inherit them, in post id order; those of `postIds` alone
 * when given. One statement: the explicit ones, and for each key corrected (its latest correction) the other posts
 * with that key (posts_text_key_idx), at most INHERITED_LIMIT of them.
 */
export async function loadCorrections(db: Db, workspaceId: string, postIds?: number[]): Promise<Corrections> {
  // A workspace without corrections (most) reads nothing of the posts: its answers, cached ones above all, never wait
  // on the corpus tables for them.
  const any = await db.execute<{ any: boolean }>(
    sql`SELECT EXISTS (SELECT 1 FROM sentiment_corrections WHERE workspace_id = ${workspaceId}) AS any`,
  );
  if (!any.rows[0]?.any) return NO_CORRECTIONS;
  const only = postIds ? sql.param(postIds) : null;
  const onlyOwn = only ? sql`WHERE post_id = ANY(${only}::bigint[])` : sql``;
  const onlyInherited = only
    ? sql`JOIN post_keys k ON k.id = d.id AND k.posted_at = d.posted_at AND k.id = ANY(${only}::bigint[])`
    : sql``;
  const { rows } = await db.execute<{
    post_id: string;
    source: string | null;
    label: SentimentLabel;
    by: string | null;
    at: string;
  }>(
    sql`WITH own AS (
        SELECT post_id, label, text_key, corrected_by, corrected_at FROM sentiment_corrections
        WHERE workspace_id = ${workspaceId}),
      keyed AS (
        SELECT DISTINCT ON (text_key) text_key, post_id, label, corrected_by, corrected_at FROM own
        WHERE text_key IS NOT NULL ORDER BY text_key, corrected_at DESC, post_id DESC),
      counted AS (
        SELECT post_id, NULL::bigint AS source, label, corrected_by, corrected_at FROM own
        ${onlyOwn}
        UNION ALL
        SELECT * FROM (
          SELECT d.id, keyed.post_id, keyed.label, keyed.corrected_by, keyed.corrected_at
          FROM keyed JOIN posts d ON d.text_key = keyed.text_key
          ${onlyInherited}
          WHERE NOT EXISTS (SELECT 1 FROM own WHERE own.post_id = d.id)
          ORDER BY d.posted_at DESC, d.id DESC LIMIT ${INHERITED_LIMIT}) inherited)
      SELECT c.post_id::text, c.source::text, c.label, ${personName} AS by,
        to_char(c.corrected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
      FROM counted c LEFT JOIN users ON users.id = c.corrected_by
      ORDER BY c.post_id`,
  );
  if (!rows.length) return NO_CORRECTIONS;
  const byId = new Map<number, Correction>();
  const ids: Corrections['ids'] = { positive: [], neutral: [], negative: [] };
  const hash = createHash('sha256');
  for (const row of rows) {
    const id = Number(row.post_id);
    const inheritedFrom = row.source === null ? null : Number(row.source);
    byId.set(id, { label: row.label, inheritedFrom, correctedBy: row.by, correctedAt: row.at });
    ids[row.label].push(id);
    hash.update(
      `${id}\t${row.label}\t${row.by ?? ''}\t${row.at}${inheritedFrom === null ? '' : `\t${inheritedFrom}`}\n`,
    );
  }
  return { byId, ids, digest: hash.digest('base64url') };
}

/** The post as the workspace sees it: a correction's label and score, the estimate kept beside them. */
export function withCorrection<P extends Pick<SocialPost, 'id' | 'sentiment' | 'sentiment_label'>>(
  post: P,
  corrections: Corrections,
): P & { sentiment_correction: SentimentCorrection | null } {
  const correction = corrections.byId.get(post.id);
  if (!correction) return { ...post, sentiment_correction: null };
  return {
    ...post,
    sentiment: LABEL_SCORE[correction.label],
    sentiment_label: correction.label,
    sentiment_correction: {
      estimated_label: post.sentiment_label,
      estimated_sentiment: post.sentiment,
      corrected_by: correction.correctedBy,
      corrected_at: correction.correctedAt,
      inherited_from: correction.inheritedFrom,
    },
  };
}

/** What the "counted" sentences add when the workspace has corrections. */
export function countedCorrections(corrections: Corrections): string {
  const n = corrections.byId.size;
  if (!n) return '';
  let inherited = 0;
  for (const correction of corrections.byId.values()) if (correction.inheritedFrom !== null) inherited += 1;
  const corrected = n - inherited;
  const posts = (k: number) => (k === 1 ? 'post' : `${k} posts`);
  const which = inherited
    ? `the ${posts(corrected)} someone corrected and the ${posts(inherited)} with the same text as one`
    : `the ${posts(corrected)} someone corrected`;
  return (
    `; sentiment as corrected in this workspace for ${which} ` +
    '(each counted with its corrected label, and 1, 0 or -1 in averages), the estimate for the rest'
  );
}

/**
 * How often the scoring agrees with the workspace's corrections (the posts corrected that still exist): the model's
 * label, and the label the workspace counts the post with once its own correction is set aside (the latest
 * correction of another post with the same text key, else the model's), so a post corrected alone counts the model.
 */
export async function correctionAgreement(db: Db, workspaceId: string): Promise<SentimentAgreementResponse> {
  const { rows } = await db.execute<SentimentAgreementResponse>(
    sql`WITH own AS (
        SELECT post_id, label, text_key, corrected_at FROM sentiment_corrections WHERE workspace_id = ${workspaceId})
      SELECT count(*)::int AS corrected,
        count(*) FILTER (WHERE p.sentiment_label = o.label)::int AS model_agreeing,
        count(*) FILTER (WHERE coalesce(peer.label, p.sentiment_label) = o.label)::int AS adapted_agreeing
      FROM own o JOIN post_keys k ON k.id = o.post_id JOIN posts p ON p.id = k.id AND p.posted_at = k.posted_at
      LEFT JOIN LATERAL (
        SELECT x.label FROM own x WHERE x.text_key = o.text_key AND x.post_id <> o.post_id
        ORDER BY x.corrected_at DESC, x.post_id DESC LIMIT 1) peer ON true`,
  );
  return rows[0]!;
}
