// A query's word tree (matching/words.ts) evaluated over the token table: the posts that have its words, read as slices
// of `tok` (sorted by token then time), grouped per post with each word's positions, and kept when the tree matches
// them. The positions are the posts' own (1, 2, 3 … by the store's rule: layout.ts, POST_WORDS), per post:
// - a word (or a prefix: every word starting with it) gives its positions, width 0;
// - words in a row give the last word's positions p where the k-th of n words has p − (n − k), width n − 1: a span
//   is known by its end positions and its width (its first position is the end less the width);
// - `near` holds when some end l of the left span and some end r of the right one have (r − width(right)) − l, or
//   (l − width(left)) − r, between 1 and the distance: one begins that many positions after the other ends;
// - `or` holds when an operand does.
// A match is "has at least one position".
import type { StoreParams } from '../params';
import type { WordSpan, WordTree, WordVal } from './words';

/** A span's end positions (a SQL array of Int32) and width. */
interface Span {
  pos: string;
  width: number;
}

/** The lexicon's words a prefix (and its mask's pattern) covers. */
const lexiconWords = (node: WordVal, params: StoreParams) =>
  `startsWith(word, ${params.add(node.word, 'String')})` +
  (node.pattern === undefined ? '' : ` AND match(word, ${params.add(node.pattern, 'String')})`);

/**
 * The token condition of a word or prefix (a prefix's tokens are found in the lexicon). `sliced`: the condition
 * selects the slices a statement reads (no other condition on `tok`), so a prefix's tokens are one constant array that
 * the primary key narrows the read to (an IN subquery is not analysed against it: child.ts); else a set tested row by
 * row.
 */
export function tokenMatch(node: WordVal, params: StoreParams, db: string, sliced = false): string {
  if (!node.prefix) return `tok = sipHash64(${params.add(node.word, 'String')})`;
  const words = lexiconWords(node, params);
  if (sliced) return `has((SELECT groupArray(tok) FROM ${db}.lexicon WHERE ${words}), tok)`;
  return `tok IN (SELECT tok FROM ${db}.lexicon WHERE ${words})`;
}

/**
 * The tokens of several prefixes and masks, and of some exact words (`tokens`, SQL expressions), as one condition
 * that selects their slices: one constant array, the exact tokens and those of every word of the lexicon a prefix
 * covers, read once (tokenMatch's sliced form, for many). One array, not an OR of `tok IN` and `has`: the primary
 * key narrows the read by it alone (an OR of the two read every slice: 4× slower for a 300-term query at 1M).
 */
export function prefixesMatch(
  nodes: readonly WordVal[],
  params: StoreParams,
  db: string,
  tokens: readonly string[] = [],
): string {
  const words = nodes.map((node) => `(${lexiconWords(node, params)})`).join(' OR ');
  const covered = `(SELECT groupArray(tok) FROM ${db}.lexicon WHERE ${words})`;
  return `has(${tokens.length ? `arrayConcat([${tokens.join(', ')}], ${covered})` : covered}, tok)`;
}

/** A word's, prefix's or mask's key: each distinct one is read once. */
const valKey = (node: WordVal) =>
  `${node.prefix ? '*' : '='}${node.word}${node.pattern ? `?${node.pattern}` : ''}`;

class Evaluation {
  /** Each distinct word or prefix: its slot and how a token row is recognised as it. */
  readonly vals = new Map<string, { alias: string; match: string }>();
  /** Aliased expressions of the grouped SELECT, in dependency order. */
  readonly columns: string[] = [];
  private readonly spans = new Map<string, Span>();
  private lambda = 0;

  /**
   * `joined`: each word's positions are those of its own slice's row (`s<i>.pos`, the i-th word's slice joined by
   * post) rather than grouped from the post's rows of every slice.
   */
  constructor(
    private readonly params: StoreParams,
    private readonly db: string,
    private readonly joined = false,
  ) {}

  private alias(expression: string): string {
    const name = `n${this.columns.length}`;
    this.columns.push(`${expression} AS ${name}`);
    return name;
  }

  private x() {
    return `x${this.lambda++}`;
  }

  private val(node: WordVal): string {
    const key = valKey(node);
    let val = this.vals.get(key);
    if (!val) {
      const match = tokenMatch(node, this.params, this.db);
      const x = this.x();
      const positions = this.joined ? `s${this.vals.size}.pos` : `arrayFlatten(groupArrayIf(pos, ${match}))`;
      const alias = this.alias(`arrayMap(${x} -> toInt32(${x}), ${positions})`);
      val = { alias, match };
      this.vals.set(key, val);
    }
    return val.alias;
  }

  /** A word's or a row of words' end positions and width. */
  span(node: WordSpan): Span {
    if (node.type === 'val') return { pos: this.val(node), width: 0 };
    const key = JSON.stringify(node);
    const known = this.spans.get(key);
    if (known) return known;
    const vals = node.words.map((word) => this.val(word));
    const x = this.x();
    const last = vals.length - 1;
    const before = vals.slice(0, last).map((pos, k) => `has(${pos}, ${x} - ${last - k})`);
    const span = {
      pos: this.alias(`arrayFilter(${x} -> ${before.join(' AND ')}, ${vals[last]!})`),
      width: last,
    };
    this.spans.set(key, span);
    return span;
  }

  /** Whether the post's grouped tokens match `node`. */
  matches(node: WordTree): string {
    switch (node.type) {
      case 'val':
      case 'phrase':
        return `notEmpty(${this.span(node).pos})`;
      case 'near': {
        const [left, right] = [this.span(node.left), this.span(node.right)];
        const [l, r] = [this.x(), this.x()];
        const within = (gap: string) => `(${gap}) BETWEEN 1 AND ${node.distance}`;
        const after = within(`${r} - ${right.width} - ${l}`);
        const near = node.ordered ? after : `${after} OR ${within(`${l} - ${left.width} - ${r}`)}`;
        return `arrayExists(${r} -> arrayExists(${l} -> ${near}, ${left.pos}), ${right.pos})`;
      }
      case 'or':
        return `(${node.operands.map((operand) => this.matches(operand)).join(' OR ')})`;
      case 'loose': {
        // From a position of one of its words, the next `size` positions hold each word as many times as it has it.
        const need = new Map<string, { pos: string; n: number }>();
        for (const word of node.words) {
          const key = valKey(word);
          need.set(key, { pos: this.val(word), n: (need.get(key)?.n ?? 0) + 1 });
        }
        const [s, p] = [this.x(), this.x()];
        const holds = [...need.values()].map(
          ({ pos, n }) => `arrayCount(${p} -> ${p} >= ${s} AND ${p} < ${s} + ${node.size}, ${pos}) >= ${n}`,
        );
        const starts = [...need.values()].map(({ pos }) => pos);
        const from = starts.length === 1 ? starts[0]! : `arrayConcat(${starts.join(', ')})`;
        return `arrayExists(${s} -> ${holds.join(' AND ')}, ${from})`;
      }
    }
  }
}

/** The words (as `val` keys) every match of `node` has: those of its spans; of an OR, those of every operand. */
function required(node: WordTree): Set<string> {
  switch (node.type) {
    case 'val':
      return new Set([valKey(node)]);
    case 'phrase':
    case 'loose':
      return new Set(node.words.map(valKey));
    case 'near':
      return new Set([...required(node.left), ...required(node.right)]);
    case 'or': {
      const [first, ...rest] = node.operands.map(required);
      return new Set([...first!].filter((key) => rest.every((set) => set.has(key))));
    }
  }
}

/** Every word or prefix of `node`. */
function vals(node: WordTree): WordVal[] {
  switch (node.type) {
    case 'val':
      return [node];
    case 'phrase':
    case 'loose':
      return node.words;
    case 'near':
      return [...vals(node.left), ...vals(node.right)];
    case 'or':
      return node.operands.flatMap(vals);
  }
}

/** Whether every match of `node` has every word of it, none of them a prefix (a prefix has rows of many tokens). */
export function joinable(node: WordTree): boolean {
  const all = vals(node);
  if (all.some((val) => val.prefix)) return false;
  const keys = new Set(all.map(valKey));
  const need = required(node);
  return keys.size > 1 && [...keys].every((key) => need.has(key));
}

/**
 * The rows of the first word's slice of the posts `tree` matches, for a tree whose every match has every word of
 * it, none a prefix (the caller checks `joinable`): the words' slices joined by post (each word one row a post),
 * the tree evaluated over their positions, 4–5× cheaper than grouping the slices' rows by post
 * (docs/analytics-engine.md, Speed at 10M). Each row has `post` and the token table's `columns`, each post once.
 */
export function wordRows(
  tree: WordTree,
  params: StoreParams,
  db: string,
  range: string,
  columns: readonly string[],
): string {
  const joined = new Evaluation(params, db, true);
  const where = joined.matches(tree);
  const slices = [...joined.vals.values()].map(({ match }, i) => {
    const read = ['post', 'pos', ...(i === 0 ? columns : [])].join(', ');
    return `(SELECT ${read} FROM ${db}.tok WHERE ${match} AND ${range}) s${i}`;
  });
  const from = slices.map((slice, i) => (i === 0 ? slice : `INNER JOIN ${slice} ON s${i}.post = s0.post`));
  const fields = [
    's0.post AS post',
    ...columns.map((column) => `s0.${column} AS ${column}`),
    ...joined.columns,
  ];
  return `SELECT ${fields.join(', ')} FROM ${from.join(' ')} WHERE ${where}`;
}

/**
 * The ids of the posts `tree` matches, as a SELECT over `db.tok` bounded by `range` (a condition on `ts`, or 'true'):
 * one word or prefix reads its slice alone; a tree whose every match has every one of its words joins their
 * slices by post (wordRows); anything else groups the slices of its words per post and checks positions only for
 * posts that have them.
 */
export function wordSet(tree: WordTree, params: StoreParams, db: string, range: string): string {
  // Prefixes find their tokens in the lexicon: a subquery, which the primary key serves only with this setting.
  const settings = 'SETTINGS use_index_for_in_with_subqueries = 1';
  if (tree.type === 'val')
    return `SELECT post FROM ${db}.tok WHERE ${tokenMatch(tree, params, db)} AND ${range} ${settings}`;
  // Every match has every word (none is a prefix): the words' slices joined by post.
  if (joinable(tree)) return `SELECT post FROM (${wordRows(tree, params, db, range, [])})`;
  const evaluation = new Evaluation(params, db);
  const having = evaluation.matches(tree);
  const tokens = [...evaluation.vals.values()].map((val) => val.match).join(' OR ');
  return `SELECT post FROM (SELECT post, ${evaluation.columns.join(', ')} FROM ${db}.tok
    WHERE (${tokens}) AND ${range} GROUP BY post HAVING ${having}) ${settings}`;
}
