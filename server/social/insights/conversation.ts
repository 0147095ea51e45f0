// The conversation dashboard: top hashtags, mentioned accounts, linked domains and words (with the average sentiment
// of the posts that contain each), and the words rising against the previous period, from the analytics store
// (server/analytics/figures/conversation.ts) by this module's sampling and emerging rule and words.ts's stop words.
// Hashtags, mentions and domains are counted in every matching post; words in about WORD_SAMPLE_CAP posts per period
// on a broad query (a fixed hash sample), because splitting every post into words is what costs most.
import type { ConversationResponse } from '@contract/insights-responses';
import type { Db } from '@server/db/database';
import { countedBase } from './counted';
import type { InsightScope } from './request';
import { previousPeriod } from './where';
import { STORE_WORD_RULE, WORD_RULE } from './words';
import {
  storeConversationTags,
  storeConversationWords,
  type StoreWordsRows,
} from '@server/analytics/figures/conversation';
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
 * post is at level L (1 to MAX_SAMPLE_LEVEL) when (id × 40503) mod 65536 < 65536 >> L.
 */
const PILOT_LEVEL = 6;
export const MAX_SAMPLE_LEVEL = 10;

export interface WordSampling {
  cap: number;
  pilotLevel: number;
}
const WORD_SAMPLING: WordSampling = { cap: WORD_SAMPLE_CAP, pilotLevel: PILOT_LEVEL };

const SAMPLE_RULE =
  'a period is sampled when its matching posts at hash level L (1 in 2^L: (id × 40503) mod 65536 < 65536 >> L) ' +
  'number at least 2 × cap ÷ 2^L; a post of it is then in the sample when (id × 40503) mod 65536 < ' +
  '⌈65536 × cap ÷ (2^L × those posts)⌉, and counts are scaled by 65536 ÷ that bound';

/** What the conversation is made of: the store's lists. */
type ConversationRows = Pick<ConversationResponse, 'hashtags' | 'mentions' | 'domains'> & StoreWordsRows;

/**
 * The conversation: the store's lists, by this module's sampling and emerging rule and words.ts's stop words and
 * kept-word rule. They name no post or person: nothing is looked up in PostgreSQL.
 */
export async function conversation(
  db: Db,
  context: InsightScope,
  limit: number,
  sampling = WORD_SAMPLING,
  service?: AnalyticsService,
): Promise<ConversationResponse> {
  const rows = await fromStore(
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
    async (_tx, found) => found,
  );
  return conversationAnswer(context, sampling, rows);
}

/** The answer from the rows. */
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
      "A word's sentiment is the average sentiment estimate of the (counted) posts that contain it, rated or not.",
    ...lists,
    words_sample: { current, previous: before, cap: sampling.cap },
    emerging_rule: EMERGING_RULE,
  };
}
