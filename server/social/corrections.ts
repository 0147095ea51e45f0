// Sentiment corrections: a person (an owner or a manager) sets a post's sentiment in one workspace, and from then on
// every figure of that workspace counts the post with that label and with the label's score (1, 0 or -1) instead of
// the lexicon's estimate; other workspaces still see the estimate. The corrections are rows of their own
// (sentiment_corrections), never written into the post, so re-imports and collectors that update the post leave
// them alone. They are read once per dashboard request (loadCorrections) and travel with the request's InsightScope:
// the analytics store is given them as bound arrays with each statement (server/analytics/figures/scope.ts), so a
// rebuilt store needs nothing of them. The answer cache keys answers by their digest. A workspace keeps at most SENTIMENT_CORRECTIONS_LIMIT of them.
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { CORRECTED_SCORE } from '@contract/sentiment-corrections';
import type { SentimentCorrection, SocialPost } from '@contract/social-posts';
import type { Db } from '@server/db/database';
import { personName } from '@server/users/person-name';

export type SentimentLabel = SocialPost['sentiment_label'];

/** The score a corrected post counts with in averages. */
const LABEL_SCORE: Record<SentimentLabel, number> = CORRECTED_SCORE;

interface Correction {
  label: SentimentLabel;
  correctedBy: string | null;
  /** ISO 8601, UTC. */
  correctedAt: string;
}

/** One workspace's corrections, as a request reads them. */
export interface Corrections {
  byId: ReadonlyMap<number, Correction>;
  /** The post ids corrected to each label. */
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
 * The workspace's corrections, in post id order (one index range of the primary key); those of `postIds` alone when
 * given.
 */
export async function loadCorrections(db: Db, workspaceId: string, postIds?: number[]): Promise<Corrections> {
  const { rows } = await db.execute<{
    post_id: string;
    label: SentimentLabel;
    by: string | null;
    at: string;
  }>(
    sql`SELECT c.post_id::text, c.label, ${personName} AS by,
        to_char(c.corrected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
      FROM sentiment_corrections c LEFT JOIN users ON users.id = c.corrected_by
      WHERE c.workspace_id = ${workspaceId}
        ${postIds ? sql`AND c.post_id = ANY(${sql.param(postIds)}::bigint[])` : sql``}
      ORDER BY c.post_id`,
  );
  if (!rows.length) return NO_CORRECTIONS;
  const byId = new Map<number, Correction>();
  const ids: Corrections['ids'] = { positive: [], neutral: [], negative: [] };
  const hash = createHash('sha256');
  for (const row of rows) {
    const id = Number(row.post_id);
    byId.set(id, { label: row.label, correctedBy: row.by, correctedAt: row.at });
    ids[row.label].push(id);
    hash.update(`${id}\t${row.label}\t${row.by ?? ''}\t${row.at}\n`);
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
    },
  };
}

/** What the "counted" sentences add when the workspace has corrections. */
export function countedCorrections(corrections: Corrections): string {
  const n = corrections.byId.size;
  if (!n) return '';
  return (
    `; sentiment as corrected in this workspace for the ${n === 1 ? 'post' : `${n} posts`} someone corrected ` +
    '(each counted with its corrected label, and 1, 0 or -1 in averages), the estimate for the rest'
  );
}
