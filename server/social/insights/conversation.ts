// The conversation dashboard: top hashtags, mentioned accounts, linked domains and words (with the average sentiment
// of the posts that contain each), and the words rising against the previous period. Hashtags, mentions and domains
// are counted in every matching post; words in about WORD_SAMPLE_CAP posts per period on a broad query (a fixed hash
// sample, found through the index without visiting the other matching posts), because splitting every post into words
// and reading every matching post twice is what costs most. When the analytics store holds PostgreSQL's corpus version,
// the same lists are read from it (server/analytics/insights/conversation.ts), counted in the same sample.
import { correctedSentiment } from '../corrections';
import { sql, type SQL } from 'drizzle-orm';
import type { ConversationResponse } from '@contract/insights-responses';
import type { Db } from '@server/db/database';
import { searchIndexed } from '@server/query/compile';
import { countedBase } from './counted';
import type { InsightScope } from './request';
import { jsonRows } from './rows';
import * as postsScan from './sources/posts-scan';
import * as rollups from './sources/rollups';
import { readOnlyParts } from './transactions';
import { insightWhere, previousPeriod, scanFrom } from './where';
import { isStopWord, keptWord, STORE_WORD_RULE, stopWordsTable, WORD_RULE } from './words';
import {
  storeConversationTags,
  storeConversationWords,
  type StoreWordsRows,
} from '@server/analytics/insights/conversation';
import type { AnalyticsService } from '@server/analytics/service';
import { fromStore } from './store-source';

/** A word is emerging with at least this many posts in the range … */
const EMERGING_MIN_POSTS = 5;
/** … and at least this many times its posts in the previous period (a previous count of 0 counts as 1). */
const EMERGING_MIN_RATIO = 2;
export const EMERGING_RULE =
  `A word is emerging when at least ${EMERGING_MIN_POSTS} posts of the range contain it and ratio = posts in the ` +
  `range ÷ posts in the previous period of equal length (0 counted as 1) is at least ${EMERGING_MIN_RATIO}; ` +
  'highest ratio first, then most posts, then the word. When words are counted in a sample, these posts are ' +
  'estimates (the Words card says how many posts were counted).';

/**
 * Words are counted in every post of a period of fewer than about twice this many, else in a sample of about this
 * many.
 */
export const WORD_SAMPLE_CAP = 5_000;
/**
 * The hash level whose matching posts (1 in 2^level) estimate each period's posts before the sample is drawn. A
 * post is at level L (1 to MAX_SAMPLE_LEVEL) when (id × 40503) mod 65536 < 65536 >> L: `post_sample_marks(id)`
 * (migration 0006), indexed beside the full-text vector.
 */
const PILOT_LEVEL = 6;
export const MAX_SAMPLE_LEVEL = 10;
/**
 * The lowest level at which the marks find the sample of a condition that the search index does not find (a
 * hashtag, a substring, fields alone). Measured on 1M posts at level 1, the words of a hashtag over 90 days took
 * 160 instead of 225 ms without the marks, of fields alone 145 instead of 195 ms, of a Korean substring 160 instead
 * of 205 ms; a word (in the search index) 170 instead of 195 ms with them.
 */
export const MIN_MARKS_LEVEL = 3;

export interface WordSampling {
  cap: number;
  pilotLevel: number;
}
const WORD_SAMPLING: WordSampling = { cap: WORD_SAMPLE_CAP, pilotLevel: PILOT_LEVEL };

const SAMPLE_RULE =
  'a period is sampled when its matching posts at hash level L (1 in 2^L: (id × 40503) mod 65536 < 65536 >> L) ' +
  'number at least 2 × cap ÷ 2^L; a post of it is then in the sample when (id × 40503) mod 65536 < ' +
  '⌈65536 × cap ÷ (2^L × those posts)⌉, and counts are scaled by 65536 ÷ that bound';

type TagsRow = Pick<ConversationResponse, 'hashtags' | 'mentions' | 'domains'>;
/** The words of both periods and the sample they were counted in: the store gives the same rows. */
type WordsRow = StoreWordsRows;

/**
 * Where the conversation reads its hashtags, mentions and domains: from post_tag_days when it serves (the condition
 * reads only the platform and the language: one row per day, tag, platform and language instead of every matching
 * post's arrays), else from one scan of the posts. Words are always read from the posts (no rollup keeps them),
 * through the sample (conversationWordsStatement).
 */
function conversationTagsStatement(context: InsightScope, limit: number) {
  const days = rollups.postDays.serves(context);
  if (days) return rollups.conversationTags(context, days, limit);
  return postsScan.conversationTags(context, limit);
}

/**
 * The words of both periods. A pilot counts each period's matching posts at hash level `pilotLevel` (one index scan
 * over the vector and the sample marks, visiting 1 in 2^level of the matching posts) and estimates the period's
 * posts. A period estimated at fewer than 2 × cap posts is read whole; a larger one only at the level whose slice
 * holds its sample (about `cap` posts), then kept below the cut. Neither visits the matching posts outside the
 * sample, which on a broad query is most of the work.
 */
function conversationWordsStatement(context: InsightScope, limit: number, sampling = WORD_SAMPLING) {
  const { scope } = context;
  const previous = previousPeriod(context);
  const { cap, pilotLevel } = sampling;
  const from = scanFrom(context);
  const hash = sql`((p.id * 40503) % 65536)::int`;
  // Per period: sampled, and the cut (65536: every post).
  const plan = (period: 'cur' | 'prev') => {
    const estimate = sql.raw(`(pilot.${period} << ${pilotLevel})`);
    return sql`${estimate} >= ${2 * cap} AS ${sql.raw(period)}_sampled,
      CASE WHEN ${estimate} >= ${2 * cap} THEN ceil(65536.0 * ${cap} / ${estimate})::int ELSE 65536 END
        AS ${sql.raw(period)}_cut`;
  };
  // One index scan reads the sampled periods' slice: the highest level that holds every post below the higher of
  // their cuts, so it holds both periods' samples.
  const level = sql`(SELECT count(*)::smallint FROM generate_series(1, ${MAX_SAMPLE_LEVEL}) l
    WHERE (65536 >> l) >= (SELECT greatest(CASE WHEN cur_sampled THEN cur_cut END,
      CASE WHEN prev_sampled THEN prev_cut END) FROM plan))`;
  const isCur = sql`p.posted_at >= ${scope.from}`;
  // And one more reads the periods that are not sampled, whole: both, or the one that is not.
  const lower = sql`(SELECT CASE WHEN prev_sampled THEN ${scope.from} ELSE ${previous.from} END FROM plan)`;
  const upper = sql`(SELECT CASE WHEN cur_sampled THEN ${scope.from} ELSE ${scope.to} END FROM plan)`;
  const score = correctedSentiment(context.corrections);
  const sampled = (marks: SQL) => sql`SELECT ${isCur} AS cur, p.search, ${score} AS sentiment, p.language
      FROM ${from}
      WHERE (SELECT cur_sampled OR prev_sampled FROM plan) AND ${insightWhere(context, previous.from, scope.to)}
        AND ${marks}
        AND ${hash} < CASE WHEN ${isCur} THEN (SELECT CASE WHEN cur_sampled THEN cur_cut END FROM plan)
          ELSE (SELECT CASE WHEN prev_sampled THEN prev_cut END FROM plan) END`;
  const marks = sql`post_sample_marks(p.id) @> ARRAY[${level}]::smallint[]`;
  // A condition the search index finds takes the marks into the same index scan, at little cost. Another one ANDs
  // them from a scan of their own, as long as the slice (1M ÷ 2^level posts at 1M): below MIN_MARKS_LEVEL, reading
  // the matching posts and keeping the sample's costs less. Only one of the two branches runs.
  const read = sql`${
    searchIndexed(scope.query)
      ? sampled(marks)
      : sql`${sampled(sql`${level} >= ${MIN_MARKS_LEVEL} AND ${marks}`)}
    UNION ALL
    ${sampled(sql`${level} < ${MIN_MARKS_LEVEL}`)}`
  }
    UNION ALL
    SELECT ${isCur}, p.search, ${score}, p.language FROM ${from}
      WHERE NOT (SELECT cur_sampled AND prev_sampled FROM plan) AND ${insightWhere(context, previous.from, scope.to)}
        AND p.posted_at >= ${lower}::timestamptz AND p.posted_at < ${upper}::timestamptz`;
  // Estimated posts: counted posts × 65536 ÷ the period's cut (× 1 without a sample).
  const estimate = (n: SQL, period: 'cur' | 'prev') => sql`(${n} * 65536::float8 / c.${sql.raw(period)}_cut)`;
  return sql`WITH pilot AS MATERIALIZED (
      SELECT count(*) FILTER (WHERE p.posted_at >= ${scope.from}) AS cur,
        count(*) FILTER (WHERE p.posted_at < ${scope.from}) AS prev
      FROM ${from} WHERE ${insightWhere(context, previous.from, scope.to)}
        AND post_sample_marks(p.id) @> ARRAY[${pilotLevel}]::smallint[]),
    plan AS MATERIALIZED (SELECT ${plan('cur')}, ${plan('prev')} FROM pilot),
    s AS MATERIALIZED (${read}),
    c AS MATERIALIZED (
      SELECT plan.cur_sampled, plan.prev_sampled, plan.cur_cut, plan.prev_cut,
        (SELECT count(*) FROM s WHERE s.cur) AS cur_counted, (SELECT count(*) FROM s WHERE NOT s.cur) AS prev_counted
      FROM plan),
    stop AS MATERIALIZED (${stopWordsTable()}),
    words AS MATERIALIZED (
      SELECT w, count(*) FILTER (WHERE cur) AS n, count(*) FILTER (WHERE NOT cur) AS prev,
        sum(sentiment) FILTER (WHERE cur) AS s
      FROM (SELECT unnest(tsvector_to_array(s.search)) AS w, s.cur, s.sentiment, s.language FROM s) x
      WHERE NOT ${isStopWord(sql`x.w`, sql`x.language`)}
      GROUP BY w),
    kept AS MATERIALIZED (
      SELECT w, n, s, ${estimate(sql`n`, 'cur')} AS est, ${estimate(sql`prev`, 'prev')} AS est_prev
      FROM words CROSS JOIN c WHERE n > 0 AND ${keptWord(sql`w`)})
    SELECT (SELECT row_to_json(c) FROM c) AS sample,
      ${jsonRows(sql`SELECT w AS value, round(est::numeric)::int AS posts, s / n AS average_sentiment FROM kept
        ORDER BY n DESC, w COLLATE "C" LIMIT ${limit}`)} AS terms,
      ${jsonRows(sql`SELECT w AS value, round(est::numeric)::int AS posts, round(est_prev::numeric)::int AS previous_posts,
          est / greatest(est_prev, 1) AS ratio
        FROM kept WHERE est >= ${EMERGING_MIN_POSTS} AND est / greatest(est_prev, 1) >= ${EMERGING_MIN_RATIO}
        ORDER BY ratio DESC, est DESC, w COLLATE "C" LIMIT ${limit}`)} AS emerging`;
}

/**
 * The conversation: from the analytics store when it holds exactly the corpus version PostgreSQL's snapshot sees
 * (store-source.ts), else from PostgreSQL. Both count words in the same posts (the same sample) by the same rule.
 */
export async function conversation(
  db: Db,
  context: InsightScope,
  limit: number,
  sampling = WORD_SAMPLING,
  service?: AnalyticsService,
): Promise<ConversationResponse> {
  const rows = service ? await conversationFromStore(db, context, limit, sampling, service) : null;
  return conversationAnswer(
    context,
    sampling,
    rows ?? (await conversationFromPostgres(db, context, limit, sampling)),
  );
}

/** What the conversation is made of, from either source. */
type ConversationRows = TagsRow & WordsRow;

async function conversationFromPostgres(
  db: Db,
  context: InsightScope,
  limit: number,
  sampling: WordSampling,
): Promise<ConversationRows> {
  const [tags, words] = await readOnlyParts<[TagsRow, WordsRow]>(
    db,
    [
      async (tx) => (await tx.execute<TagsRow>(conversationTagsStatement(context, limit))).rows[0]!,
      async (tx) =>
        (await tx.execute<WordsRow>(conversationWordsStatement(context, limit, sampling))).rows[0]!,
    ],
    { timeZone: context.timeZone },
  );
  return { ...tags, ...words };
}

/**
 * The store's lists (server/analytics/insights/conversation.ts), by this module's sampling and emerging rule and
 * words.ts's stop words and kept-word rule. They name no post or person: nothing is looked up in the snapshot, which
 * only confirms the corpus version.
 */
const conversationFromStore = (
  db: Db,
  context: InsightScope,
  limit: number,
  sampling: WordSampling,
  service: AnalyticsService,
) =>
  fromStore(
    db,
    context,
    service,
    async (store, scope): Promise<ConversationRows> => {
      const [tags, words] = await Promise.all([
        storeConversationTags(store, scope, limit),
        storeConversationWords(store, scope, limit, {
          ...sampling,
          maxLevel: MAX_SAMPLE_LEVEL,
          emergingMinPosts: EMERGING_MIN_POSTS,
          emergingMinRatio: EMERGING_MIN_RATIO,
          ...STORE_WORD_RULE,
        }),
      ]);
      return { ...tags, ...words };
    },
    async (_tx, rows) => rows,
  );

/** The answer from the rows, the same whichever source read them. */
function conversationAnswer(
  context: InsightScope,
  sampling: WordSampling,
  rows: ConversationRows,
): ConversationResponse {
  const { scope, timeZone } = context;
  const previous = previousPeriod(context);
  const { sample, ...lists } = rows;
  const period = (name: 'cur' | 'prev') => {
    const counted = Number(sample[`${name}_counted`]);
    return {
      posts: Math.round((counted * 65536) / Number(sample[`${name}_cut`])),
      sampled: counted,
      estimated: sample[`${name}_sampled`],
    };
  };
  const [current, before] = [period('cur'), period('prev')];
  const describe = (p: typeof current, of: string) =>
    p.estimated
      ? `a sample of ${p.sampled} of ${of} about ${p.posts} posts`
      : `every one of ${of} ${p.posts} posts`;
  return {
    time_zone: timeZone,
    range: { from: scope.from.toISOString(), to: scope.to.toISOString() },
    previous_range: { from: previous.from.toISOString(), to: previous.to.toISOString() },
    query: context.normalized,
    counted:
      `${countedBase(context)}. Hashtags, mentioned accounts and linked domains are counted in every post ` +
      `(each once per post, most first, ties in code-point order); ${WORD_RULE}. ` +
      (current.estimated || before.estimated
        ? `Words were counted in ${describe(current, "the range's")} and in ${describe(before, "the previous period's")} ` +
          `(${SAMPLE_RULE}, with L = ${sampling.pilotLevel} and cap ${sampling.cap}); the post counts of a sampled ` +
          'period are estimates. '
        : 'Words were counted in every post. ') +
      "A word's sentiment is the average sentiment estimate of the (counted) posts that contain it.",
    ...lists,
    words_sample: { current, previous: before, cap: sampling.cap },
    emerging_rule: EMERGING_RULE,
  };
}
