// "Why this spike" from the store (server/social/insights/drivers.ts makes its answer of it): for a window and its
// baseline's windows (an explicit list, each before the window: the same wall-clock hours of the days before, or the
// range just before), each value of each dimension
// with its posts in the window (a) and in the baseline (b), and the posts of each (nw, nb). Values are over-represented
// ones only (a ÷ nw > b ÷ nb, or every value when the baseline is empty) with at least `minPosts` posts in the window,
// ranked by G² (g2Sql), the first `keep` of each dimension: the caller ranks them again exactly (in TypeScript) and
// keeps its limit. Two statements, side by side: the post's own values (hashtags, mentions and domains from `tags`,
// author, platform, language, label ("not rated" apart, as the sentiment refinement and the overview's split read
// it): read from a query's token slices where it has them), and its words (`toks`, as
// the conversation counts them: the lexicon's words, the stop words of the post's language left out, the kept-word
// shape).
import type { DriverKind } from '@contract/insights-drivers';
import { NOT_RATED_LABEL, STORE_DATABASE, TAG_MARKS } from '../layout';
import { StoreParams } from '../params';
import type { AnalyticsStore } from '../store';
import { countedTokens, stopWords, type StoreWordsRule } from './conversation';
import { storeFrom, storeLabel, zonePlaceholder, type StoreScope } from './scope';

/**
 * The window [from, to) and its baseline's windows [from, to), each ending at or before the window's start and none
 * overlapping another (an empty one holds no posts).
 */
export interface StoreWindows {
  from: Date;
  to: Date;
  baseline: ReadonlyArray<{ from: Date; to: Date }>;
}

export interface StoreDriverRow {
  kind: DriverKind;
  value: string;
  a: number;
  b: number;
}

export interface StoreDriversRows {
  /** Posts of the window, and of the baseline's windows together. */
  nw: number;
  nb: number;
  rows: StoreDriverRow[];
}

/** The rule's thresholds: what the caller gives (server/social/insights/drivers.ts). */
export interface StoreDriversRule extends Pick<
  StoreWordsRule,
  'stopLanguages' | 'stopWords' | 'link' | 'letter' | 'beyondLatin'
> {
  minPosts: number;
  /** Values kept per dimension, before the caller's exact ranking. */
  keep: number;
}

/** The first byte of a value's key: its dimension (hashtags, mentions and domains as `tags` marks them). */
const KIND_OF_MARK: Record<string, DriverKind> = {
  [TAG_MARKS.hashtags]: 'hashtag',
  [TAG_MARKS.mentions]: 'mention',
  [TAG_MARKS.domains]: 'domain',
  a: 'author',
  p: 'platform',
  l: 'language',
  s: 'sentiment',
};
const LABEL_OF = {
  '1': 'positive',
  '0': 'neutral',
  '-1': 'negative',
  [String(NOT_RATED_LABEL)]: 'not_rated',
} as Record<string, string>;

/**
 * Dunning's log-likelihood G² of a value's 2 × 2 table (with it / without it, window / baseline) as SQL over the
 * Float64 expressions a, b, nw, nb: 2 Σ O ln(O ÷ E), a cell without posts adding 0. The same formula as g2() in
 * server/social/insights/drivers.ts, which ranks exactly.
 */
function g2Sql(a: string, b: string, nw: string, nb: string): string {
  const n = `(${nw} + ${nb})`;
  const r = `(${a} + ${b})`;
  const cell = (o: string, e: string) => `if(${o} > 0, ${o} * log(${o} / (${e})), 0.)`;
  return `2 * (${[
    cell(a, `${nw} * ${r} / ${n}`),
    cell(`(${nw} - ${a})`, `${nw} * (${n} - ${r}) / ${n}`),
    cell(b, `${nb} * ${r} / ${n}`),
    cell(`(${nb} - ${b})`, `${nb} * (${n} - ${r}) / ${n}`),
  ].join(' + ')})`;
}

/** The posts of the windows: p.ts within their span, and in one of them (the window itself the last). */
function windowsOf(
  scope: StoreScope,
  params: StoreParams,
  windows: StoreWindows,
  columns: readonly string[],
) {
  const { context } = scope;
  const all = [...windows.baseline, windows];
  const lo = Math.min(...all.map((w) => w.from.getTime()));
  const listed = all.filter((w) => w.to.getTime() > w.from.getTime());
  const span = { from: new Date(lo), to: windows.to };
  const found = storeFrom(scope, params, zonePlaceholder(context, params), columns, span);
  // A post between two windows (the hours of a day outside them) is left out.
  const within = listed
    .map(
      (w) =>
        `(p.ts >= ${params.add(w.from.getTime(), 'Int64')} AND p.ts < ${params.add(w.to.getTime(), 'Int64')})`,
    )
    .join(' OR ');
  return {
    ...found,
    where: `${found.where} AND (${within || 'false'})`,
    cur: `p.ts >= ${params.add(windows.from.getTime(), 'Int64')}`,
  };
}

/** The over-represented rows of a counted table `t` (k, a, b; the counter row's k = ''), ranked by G² per mark. */
function ranked(counted: string, params: StoreParams, rule: StoreDriversRule, extra = 'true') {
  const f = (x: string) => `toFloat64(${x})`;
  const min = params.add(rule.minPosts, 'UInt64');
  return `SELECT k, a, b, nw, nb FROM (
      SELECT k, a, b, max(if(k = '', a, 0)) OVER () AS nw, max(if(k = '', b, 0)) OVER () AS nb FROM (${counted}))
    WHERE k = '' OR (a >= ${min} AND (a * nb > b * nw OR nb = 0) AND ${extra})
    ORDER BY substring(k, 1, 1), ${g2Sql(f('a'), f('b'), f('nw'), f('nb'))} DESC, a DESC, k
    LIMIT ${Number(rule.keep)} BY substring(k, 1, 1)`;
}

type Counted = { k: string; a: string; b: string; nw: string; nb: string };

/** Hashtags, mentions, domains, author, platform, language and label of each post of the windows. */
async function valuesOf(
  store: AnalyticsStore,
  scope: StoreScope,
  windows: StoreWindows,
  rule: StoreDriversRule,
) {
  const params = new StoreParams();
  const { from, where, cur } = windowsOf(scope, params, windows, [
    'id',
    'ts',
    'tags',
    'author_id',
    'platform',
    'lang',
    'label',
  ]);
  const label = storeLabel(scope.context.corrections, params);
  const counted = `SELECT k, countIf(cur) AS a, countIf(NOT cur) AS b
    FROM (SELECT ${cur} AS cur, arrayConcat([''], arrayMap(t -> toString(t), p.tags),
        [concat('a', toString(p.author_id)), concat('p', toString(p.platform)), concat('s', toString(${label}))],
        if(p.lang = '', [], [concat('l', toString(p.lang))])) AS keys
      FROM ${from} WHERE ${where})
    ARRAY JOIN keys AS k GROUP BY k`;
  return store.query<Counted>(ranked(counted, params, rule), params.values);
}

/** The words of each post of the windows, as the conversation counts them (its stop words and kept-word shape). */
async function wordsOf(
  store: AnalyticsStore,
  scope: StoreScope,
  windows: StoreWindows,
  rule: StoreDriversRule,
) {
  const { db = STORE_DATABASE } = scope;
  const stopped = stopWords(store, rule);
  await stopped.ready;
  const params = new StoreParams();
  const { from, where, cur } = windowsOf(scope, params, windows, ['ts', 'toks', 'lang']);
  const [link, letter, beyondLatin] = [rule.link, rule.letter, rule.beyondLatin].map((r) =>
    params.add(r, 'String'),
  );
  // The counter (token 0, before every post's tokens) is no lexeme's: its word is '' (the join finds none). A word is
  // once however often the lexicon holds it before its merge.
  const counted = `SELECT if(x.tok = 0, '', concat('t', l.word)) AS k, any(x.a) AS a, any(x.b) AS b
      FROM ${db}.lexicon l RIGHT JOIN (
        SELECT tok, countIf(cur) AS a, countIf(NOT cur) AS b
        FROM (SELECT ${cur} AS cur, ${countedTokens(stopped.digest, 'p.toks', 'p.lang')} AS toks
          FROM ${from} WHERE ${where})
        ARRAY JOIN arrayPushFront(toks, 0) AS tok
        GROUP BY tok) x ON x.tok = l.tok
    GROUP BY k`;
  const word = 'substring(k, 2)';
  const shape =
    `NOT match(${word}, ${link}) AND match(${word}, ${letter}) ` +
    `AND lengthUTF8(${word}) >= if(match(${word}, ${beyondLatin}), 2, 3)`;
  return store.query<Counted>(ranked(counted, params, rule, shape), params.values);
}

/** Each dimension's over-represented values in the window against its baseline, and the posts of each. */
export async function storeDrivers(
  store: AnalyticsStore,
  scope: StoreScope,
  windows: StoreWindows,
  rule: StoreDriversRule,
): Promise<StoreDriversRows> {
  const [values, words] = await Promise.all([
    valuesOf(store, scope, windows, rule),
    wordsOf(store, scope, windows, rule),
  ]);
  const counter = values.find((row) => row.k === '');
  const rows: StoreDriverRow[] = [];
  for (const row of [...values, ...words]) {
    if (row.k === '') continue;
    const mark = row.k[0]!;
    const kind = mark === 't' ? 'term' : KIND_OF_MARK[mark];
    if (!kind) continue;
    const raw = row.k.slice(1);
    rows.push({
      kind,
      value: kind === 'sentiment' ? LABEL_OF[raw]! : raw,
      a: Number(row.a),
      b: Number(row.b),
    });
  }
  return { nw: Number(counter?.a ?? 0), nb: Number(counter?.b ?? 0), rows };
}
