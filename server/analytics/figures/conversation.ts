// The conversation dashboard from the store (server/social/insights/conversation.ts makes its answer of it).
// Hashtags, mentioned accounts and linked domains: posts of the range carrying each (an element repeated in a post
// counts once), most first, ties in code-point order (ClickHouse compares strings by bytes), over the matching posts (a
// text query's found once). Words and emerging words: counted in every post of a period, or in a hash sample of it, by
// the rule the caller gives (StoreWordsRule: the sampling, the emerging rule, the stop words and the kept-word shape):
// the store's code does not import the social domain's.
import { createHash } from 'node:crypto';
import { DURABLE, hasTable, sampleHash, STORE_DATABASE, TAG_MARKS } from '../layout';
import { StoreParams } from '../params';
import { isStoreMissing } from '../refusals';
import type { AnalyticsStore } from '../store';
import {
  previousRange,
  storeFrom,
  storeSentiment,
  storeWhere,
  zonePlaceholder,
  type StoreScope,
} from './scope';

export interface StoreTagsRows {
  hashtags: Array<{ value: string; posts: number }>;
  mentions: Array<{ value: string; posts: number }>;
  domains: Array<{ value: string; posts: number }>;
}

const LISTS = ['hashtags', 'mentions', 'domains'] as const;
const LIST_OF_MARK = new Map<string, (typeof LISTS)[number]>(LISTS.map((list) => [TAG_MARKS[list], list]));

export async function storeConversationTags(
  store: AnalyticsStore,
  scope: StoreScope,
  limit: number,
): Promise<StoreTagsRows> {
  const { context } = scope;
  const lists: StoreTagsRows = { hashtags: [], mentions: [], domains: [] };
  const read = (columns: readonly string[]) => {
    const params = new StoreParams();
    const { from, where, candidates } = storeFrom(scope, params, zonePlaceholder(context, params), columns);
    return { params, from, where, candidates };
  };
  const first = read(['tags']);
  const query = context.scope.query;
  if (first.candidates || (query && scope.match.setRows?.(query, context.scope))) {
    // A text query, or a filter's slices (filterCandidates), or a long query's set of matches (match-sets.ts): its
    // posts are found once, and their three lists counted in one pass over each post's `tags` (the lists in one, each
    // element once, marked by its list: TAG_MARKS), read from the token slices or the set's rows where the scope allows
    // (storeFrom), from the posts tested against the candidates' ids or the set otherwise (with a set at 10M over 90
    // days, 641–747 ms p50 against 964–983 for a statement a list, side by side). Grouped by the element alone (one
    // String key; by its mark and value, two keys, the grouping took twice as long), then each list's first `limit`
    // kept by groupArraySorted, smallest (−posts, element) first: most posts, then the element's bytes, which within a
    // list are its value's. Sorting every distinct element (412,000 at 10M for a filter of half the posts over 90 days)
    // for LIMIT BY cost a third of the statement.
    const rows = await store.query<{ mark: string; value: string; posts: string }>(
      `SELECT mark, substring(e.2, 2) AS value, -e.1 AS posts
      FROM (
        SELECT substring(t, 1, 1) AS mark, groupArraySorted(${Number(limit)})((-toInt64(n), t)) AS top
        FROM (SELECT toString(arrayJoin(p.tags)) AS t, count() AS n FROM ${first.from} WHERE ${first.where} GROUP BY t)
        GROUP BY mark
      ) ARRAY JOIN top AS e`,
      first.params.values,
    );
    for (const row of rows)
      lists[LIST_OF_MARK.get(row.mark)!].push({ value: row.value, posts: Number(row.posts) });
    return lists;
  }
  // Every post of the range, or a filter's: a statement a list, side by side (one pass joining the three lists'
  // tuples took twice their CPU together, 2.9 s against 1.4 s over 90 days at 10M).
  await Promise.all(
    LISTS.map(async (list, i) => {
      const { params, from, where } = i === 0 ? first : read([list]);
      const rows = await store.query<{ value: string; posts: string }>(
        `SELECT value, count() AS posts
        FROM ${from} ARRAY JOIN arrayDistinct(p.${list}) AS value
        WHERE ${where}
        GROUP BY value
        ORDER BY posts DESC, value
        LIMIT ${Number(limit)}`,
        params.values,
      );
      lists[list] = rows.map((row) => ({ value: row.value, posts: Number(row.posts) }));
    }),
  );
  return lists;
}

/** How the conversation counts its words: given by server/social/insights (conversation.ts, words.ts). */
export interface StoreWordsRule {
  /** The sample (conversation.ts's WordSampling): about `cap` posts a period, estimated from level `pilotLevel`. */
  cap: number;
  pilotLevel: number;
  /** The levels `post_sample_marks` marks (1 to this): the pilot finds posts at `pilotLevel` only within them. */
  maxLevel: number;
  /** A word is emerging with at least this many (estimated) posts and this ratio to the previous period. */
  emergingMinPosts: number;
  emergingMinRatio: number;
  /** The stop words as two parallel arrays (language, word). */
  stopLanguages: readonly string[];
  stopWords: readonly string[];
  /**
   * The kept-word rule's regular expressions (words.ts's, in re2's syntax): a link (which the posts' `toks` no longer
   * hold: the store leaves links out before it splits words, words.ts STORE_WORD_RULE), a letter, beyond Latin.
   */
  link: string;
  letter: string;
  beyondLatin: string;
}

/** One period's sample: sampled or read whole, its cut (65536: every post), posts counted. */
type StoreWordsSample = Record<`${'cur' | 'prev'}_${'counted' | 'cut'}`, number> &
  Record<`${'cur' | 'prev'}_sampled`, boolean>;

export type StoreWordsRows = {
  sample: StoreWordsSample;
  /** Most posts counted first, then the word's bytes; posts estimated (rounded) from the counted ones. */
  terms: Array<{ value: string; posts: number; average_sentiment: number }>;
  /** Highest ratio first, then most estimated posts, then the word's bytes. */
  emerging: Array<{ value: string; posts: number; previous_posts: number; ratio: number }>;
};

/** One period's cut: 65536 (above every hash) when the period is read whole. */
const WHOLE = 65536;

/** The range and the period of equal length before it, which the sample's statements read together. */
const bothPeriods = (scope: StoreScope) => ({
  from: previousRange(scope.context).from,
  to: scope.context.scope.to,
});

/**
 * The sample's plan: each period's matching posts at the pilot
 * level (hash < 65536 >> level) counted, scaled by 2^level into an estimate; a period estimated at 2 × cap or more is
 * sampled, with the cut ⌈65536 × cap ÷ estimate⌉ (in integers, as numeric's ceil gives it), else read whole (cut
 * 65536, above every hash). The pilot reads the posts' sample-ordered copy (`posts_sampled`, its hash `h` =
 * SAMPLE_HASH), where the posts below a hash are one stretch at the table's start. One statement, before the words':
 * its cuts decide which table they read (countedFrom).
 */
async function samplePlan(store: AnalyticsStore, scope: StoreScope, rule: StoreWordsRule) {
  const { context, db = STORE_DATABASE } = scope;
  const params = new StoreParams();
  const zone = zonePlaceholder(context, params);
  const marked = rule.pilotLevel >= 1 && rule.pilotLevel <= rule.maxLevel;
  const bound = marked ? 65536 >> rule.pilotLevel : 0;
  // The query's sets are cut to the pilot's posts before they are built (a phrase's slices joined for 1/64 of them).
  const where = storeWhere(scope, params, zone, { ...bothPeriods(scope), sampleBelow: bound });
  const from = params.add(context.scope.from.getTime(), 'Int64');
  const pilotBound = params.add(bound, 'UInt32');
  const scale = params.add(2 ** rule.pilotLevel, 'UInt64');
  const cap = params.add(rule.cap, 'UInt64');
  const twice = params.add(2 * rule.cap, 'UInt64');
  const cut = (period: 'cur' | 'prev') =>
    `if(${period}_sampled, intDiv(65536 * ${cap} + ${period}_est - 1, greatest(${period}_est, 1)), ${WHOLE})
      AS ${period}_cut`;
  const [row] = await store.query<Record<`${'cur' | 'prev'}_${'sampled' | 'cut'}`, number | string>>(
    `WITH (SELECT (countIf(p.ts >= ${from}), countIf(p.ts < ${from})) FROM ${db}.posts_sampled p
        WHERE p.h < ${pilotBound} AND ${where}) AS pilot,
      pilot.1 * ${scale} AS cur_est, pilot.2 * ${scale} AS prev_est,
      cur_est >= ${twice} AS cur_sampled, prev_est >= ${twice} AS prev_sampled
    SELECT cur_sampled, prev_sampled, ${cut('cur')}, ${cut('prev')}`,
    params.values,
  );
  return {
    cur_sampled: Number(row!.cur_sampled) === 1,
    prev_sampled: Number(row!.prev_sampled) === 1,
    cur_cut: Number(row!.cur_cut),
    prev_cut: Number(row!.prev_cut),
  };
}

/**
 * The counted posts of both periods, over `p`: a post of a period whose hash is below its period's cut. A sample is read from the
 * sample-ordered copy (the stretch below the larger cut); when either period is read whole, from `posts` itself, whose
 * time index narrows the read to the range's granules where the copy's rows of a range lie in all of them; when both
 * are, by id when the query's slices name them (`byId`: the statement then lets `IN` use the primary key).
 */
function countedFrom(
  scope: StoreScope,
  params: StoreParams,
  cuts: { cur_cut: number; prev_cut: number },
  from: string,
): { sql: string; byId: boolean } {
  const { context, db = STORE_DATABASE } = scope;
  const zone = zonePlaceholder(context, params);
  if (cuts.cur_cut === WHOLE && cuts.prev_cut === WHOLE) {
    // Neither period sampled: few posts. When the query's token slices give them (storeFrom), they are found there
    // first and only their rows of `posts` read, by id (its primary key: the statement sets
    // use_index_for_in_with_subqueries), rather than every granule of both periods for their lexemes.
    // Otherwise p is the posts table and `where` the scope's condition over it (storeFrom).
    const found = storeFrom(scope, params, zone, ['id'], bothPeriods(scope));
    return found.slices
      ? {
          sql: `FROM ${db}.posts p WHERE p.id IN (SELECT p.id FROM ${found.from} WHERE ${found.where})`,
          byId: true,
        }
      : { sql: `FROM ${found.from} WHERE ${found.where}`, byId: false };
  }
  // The query's sets cut to the sample's posts before they are built.
  const sampleBelow = Math.max(cuts.cur_cut, cuts.prev_cut);
  const where = storeWhere(scope, params, zone, { ...bothPeriods(scope), sampleBelow });
  const [cur, prev] = [params.add(cuts.cur_cut, 'UInt32'), params.add(cuts.prev_cut, 'UInt32')];
  // One period whole: the copy's stretch below its cut would be the whole copy, every time, so `posts` is read
  // instead, its time index keeping the read to the range's granules, and the sampled period's cut tested a post.
  if (sampleBelow === WHOLE)
    return {
      sql: `FROM ${db}.posts p WHERE ${sampleHash('p.id')} < if(p.ts >= ${from}, ${cur}, ${prev}) AND ${where}`,
      byId: false,
    };
  // The hash first: the copy is ordered by it, so a sample reads the stretch below its larger cut.
  return {
    sql: `FROM ${db}.posts_sampled p WHERE p.h < greatest(${cur}, ${prev})
    AND p.h < if(p.ts >= ${from}, ${cur}, ${prev}) AND ${where}`,
    byId: false,
  };
}

/** The database of the store's word lists (never rebuilt: a rebuild replaces STORE_DATABASE alone). */
const RULES_DATABASE = 'murmur_rules';
const listDigests = new WeakMap<readonly string[], string>();
/** A digest of the stop words (the same lists always give the same one), which names their rows in the store. */
function stopDigest(rule: Pick<StoreWordsRule, 'stopLanguages' | 'stopWords'>): string {
  const known = listDigests.get(rule.stopWords);
  if (known && listDigests.get(rule.stopLanguages) === known) return known;
  const digest = createHash('sha256')
    .update(JSON.stringify([rule.stopLanguages, rule.stopWords]))
    .digest('hex');
  listDigests.set(rule.stopWords, digest).set(rule.stopLanguages, digest);
  return digest;
}

/** Per store process, the stop-word digests known to be held (or being written): checked once, not per request. */
const heldStopWords = new WeakMap<AnalyticsStore, Map<string, Promise<void>>>();

/**
 * The stop words as rows of the store (`murmur_rules.stop_words`, under their digest), written the first time a
 * store is asked for them: a statement then reads 6,000 rows rather than parsing both lists again (about 35 ms of
 * every conversation at 1M posts). One INSERT writes them all or none, so rows under the digest are the whole list;
 * two processes writing them at once leave each row twice, which a set does not see. Whether the store holds them is
 * asked once per store process (`heldStopWords`); a words statement that fails forgets it (forgetStopWords), so a
 * store whose files were replaced is asked again.
 */
export function stopWords(
  store: AnalyticsStore,
  rule: Pick<StoreWordsRule, 'stopLanguages' | 'stopWords'>,
): { digest: string; ready: Promise<void> } {
  const digest = stopDigest(rule);
  const known = heldStopWords.get(store) ?? new Map<string, Promise<void>>();
  heldStopWords.set(store, known);
  let ready = known.get(digest);
  if (!ready) {
    ready = writeStopWords(store, rule, digest);
    known.set(digest, ready);
    ready.catch(() => known.delete(digest));
  }
  return { digest, ready };
}

const forgetStopWords = (store: AnalyticsStore, digest: string) => heldStopWords.get(store)?.delete(digest);

const STOP_TABLE = `${RULES_DATABASE}.stop_words`;

/**
 * SQL: a post's tokens (`toks`) less the stop words of its language (`lang`; every language's for an unknown one, ''),
 * so that they can be counted per token alone. Each token is looked up as itself plus its language's hash, one UInt64
 * in the set of the stop words' (a sum of two 64-bit hashes: a collision with a stop word's is about 1 in 10^10 at
 * 10M posts' vocabulary). Grouping every token by token and language, and leaving the stop words out after, took 1.8×
 * the CPU at 10M posts over 30 days (the tuple of a string and a number is the slow key), for the same rows.
 */
export function countedTokens(digest: string, toks: string, lang: string): string {
  const stop = `(SELECT lang, word FROM ${STOP_TABLE} WHERE digest = '${digest}')`;
  const keys = `(SELECT sipHash64(word) + cityHash64(lang) FROM (SELECT lang, word FROM ${stop}
    UNION ALL SELECT '' AS lang, word FROM ${stop}))`;
  return `arrayFilter(t -> NOT ((t + cityHash64(${lang})) IN ${keys}), ${toks})`;
}

async function writeStopWords(
  store: AnalyticsStore,
  rule: Pick<StoreWordsRule, 'stopLanguages' | 'stopWords'>,
  digest: string,
): Promise<void> {
  const d = `'${digest}'`;
  const held = await store
    .query<{ n: string }>(`SELECT count() AS n FROM ${STOP_TABLE} WHERE digest = ${d}`)
    .catch(() => [{ n: '0' }]);
  if (Number(held[0]?.n) > 0) return;
  await store.exec(`CREATE DATABASE IF NOT EXISTS ${RULES_DATABASE}`);
  await store.exec(
    `CREATE TABLE IF NOT EXISTS ${STOP_TABLE} (digest String, lang LowCardinality(String), word String)
      ENGINE = MergeTree ORDER BY (digest, lang, word) SETTINGS ${DURABLE}`,
  );
  const params = new StoreParams();
  const languages = params.add(rule.stopLanguages, 'Array(String)');
  const words = params.add(rule.stopWords, 'Array(String)');
  await store.query(
    `INSERT INTO ${STOP_TABLE} (digest, lang, word)
      SELECT ${d}, t.1, t.2 FROM (SELECT arrayJoin(arrayZip(${languages}, ${words})) AS t)`,
    params.values,
  );
}

/**
 * The conversation's words from the store (server/social/insights/conversation.ts gives the rule). The counted posts
 * of the sample's plan, each lexeme hash once per post (`toks`) less the stop words of the post's language
 * (countedTokens), counted per hash; the words looked up in the lexicon; then per word the
 * kept-word rule, the estimates and both lists, each taken by groupArraySorted in the list's order.
 */
export async function storeConversationWords(
  store: AnalyticsStore,
  scope: StoreScope,
  limit: number,
  rule: StoreWordsRule,
): Promise<StoreWordsRows> {
  const { db = STORE_DATABASE } = scope;
  const stopped = stopWords(store, rule);
  const [sample] = await Promise.all([samplePlan(store, scope, rule), stopped.ready]);
  const params = new StoreParams();
  const from = params.add(scope.context.scope.from.getTime(), 'Int64');
  const counted = countedFrom(scope, params, sample, from);
  const [curCut, prevCut] = [params.add(sample.cur_cut, 'Float64'), params.add(sample.prev_cut, 'Float64')];
  const [link, letter, beyondLatin] = [rule.link, rule.letter, rule.beyondLatin].map((r) =>
    params.add(r, 'String'),
  );
  const top = params.add(limit, 'UInt32');
  const score = storeSentiment(scope.context.corrections, params);
  const [minPosts, minRatio] = [
    params.add(rule.emergingMinPosts, 'Float64'),
    params.add(rule.emergingMinRatio, 'Float64'),
  ];
  const run = () =>
    store.query<{
      counted: [string, string];
      terms: Array<[string, string, number, number]>;
      emerging: Array<[number, number, string, number, number, number]>;
    }>(
      `SELECT (sumIf(n, counter), sumIf(prev, counter)) AS counted,
      groupArraySortedIf(${top})((-n, word, est, s / n), NOT counter) AS terms,
      groupArraySortedIf(${top})((-ratio, -est, word, est, est_prev, ratio),
        NOT counter AND est >= ${minPosts} AND ratio >= ${minRatio}) AS emerging
    FROM (
      SELECT word, counter, n, prev, s, n * 65536. / ${curCut} AS est, prev * 65536. / ${prevCut} AS est_prev,
        est / greatest(est_prev, 1.) AS ratio
      FROM (
        -- A lexeme's word, once however often the lexicon holds it before its merge. The counter (token 0, put before
        -- every post's tokens, so that a post without any is counted too) is no lexeme's: it counts the posts
        -- themselves, and so reads them once for both.
        SELECT l.word AS word, b.tok = 0 AS counter, any(b.n) AS n, any(b.prev) AS prev, any(b.s) AS s
        FROM ${db}.lexicon l RIGHT JOIN (
          SELECT tok, countIf(cur) AS n, countIf(NOT cur) AS prev, sumIf(sentiment, cur) AS s
          FROM (SELECT p.ts >= ${from} AS cur, ${countedTokens(stopped.digest, 'p.toks', 'p.lang')} AS toks,
            ${score} AS sentiment ${counted.sql})
          ARRAY JOIN arrayPushFront(toks, 0) AS tok
          GROUP BY tok) b ON b.tok = l.tok
        GROUP BY word, counter)
      WHERE counter OR (n > 0 AND NOT match(word, ${link}) AND match(word, ${letter})
        AND lengthUTF8(word) >= if(match(word, ${beyondLatin}), 2, 3)))
    ${counted.byId ? 'SETTINGS use_index_for_in_with_subqueries = 1' : ''}`,
      params.values,
    );
  const [row] = await run().catch(async (error: unknown) => {
    forgetStopWords(store, stopped.digest);
    // The stop words' table gone from a store that held it (a server's rules database dropped): written again, and
    // the statement sent once more. Any other refusal is the caller's to handle.
    if (!isStoreMissing(error) || (await hasTable(store, RULES_DATABASE, 'stop_words'))) throw error;
    await stopWords(store, rule).ready;
    return run();
  });
  const r = row!;
  // An estimate is rounded as PostgreSQL's round(est::numeric) did: the float kept to 15 significant digits, then
  // halves away from zero. An estimate n × 65536 ÷ cut is never a half (2 × n × 65536 = (2k + 1) × cut needs cut ≥ 2^17, and a
  // sampled period's cut is at most 32768; a whole one's estimate is n): it lies at least 1 ÷ 65536 from one, far
  // beyond those 15 digits' error for any count of posts, so Math.round agrees.
  return {
    sample: {
      ...sample,
      cur_counted: Number(r.counted[0]),
      prev_counted: Number(r.counted[1]),
    },
    terms: r.terms.map(([, value, est, average]) => ({
      value,
      posts: Math.round(est),
      average_sentiment: average,
    })),
    emerging: r.emerging.map(([, , value, est, estPrev, ratio]) => ({
      value,
      posts: Math.round(est),
      previous_posts: Math.round(estPrev),
      ratio,
    })),
  };
}
