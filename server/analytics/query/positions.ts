// A tsquery tree evaluated over the token table as PostgreSQL evaluates it over a tsvector (TS_execute and
// TS_phrase_execute of tsvector_op.c): the posts that have its lexemes, read as slices of `tok` (sorted by token then
// time), grouped per post with each lexeme's positions, and kept when the tree matches them.
//
// What PostgreSQL computes, reproduced here per post:
// - a lexeme (or a prefix: every lexeme starting with it) gives its positions, width 0;
// - `L <d> R` gives the end positions r of R such that some end position l of L has l + d + width(R) = r, width
//   d + width(L) + width(R): with phrases, the distance runs from L's last word to R's first;
// - `L | R` inside a phrase gives both sides' positions, each shifted right by (the wider matched side's width − its
//   own), width that maximum (a side that did not match counts as width 0): PostgreSQL aligns the narrower side's
//   positions to the right end of the wider one, so `x <1> ( 'flat white' | 'latte' )` is met by "x y latte" when
//   "flat white" also occurs in the post, and by "x latte" when it does not;
// - above the phrases, `|` and `&` are plain boolean operators over "has a match".
// A match is "has at least one position". Positions are the tsvector's own (capped at 16383, 256 a lexeme).
import type { StoreParams } from '../params';
import type { TsNode } from './tsquery';

/** A phrase-level node's positions (a SQL array of Int32) and width (a number, or SQL when an OR makes it vary). */
interface Span {
  pos: string;
  width: number | string;
}

const plus = (a: number | string, b: number | string) =>
  typeof a === 'number' && typeof b === 'number' ? a + b : `(${a} + ${b})`;

/**
 * The token condition of a lexeme or prefix (a prefix's tokens are found in the lexicon). `sliced`: the condition
 * selects the slices a statement reads (no other condition on `tok`), so a prefix's tokens are one constant array that
 * the primary key narrows the read to (an IN subquery is not analysed against it: child.ts); else a set tested row by
 * row.
 */
export function tokenMatch(
  node: { lexeme: string; prefix: boolean },
  params: StoreParams,
  db: string,
  sliced = false,
): string {
  const value = params.add(node.lexeme, 'String');
  if (node.prefix && sliced)
    return `has((SELECT groupArray(tok) FROM ${db}.lexicon WHERE startsWith(word, ${value})), tok)`;
  return node.prefix
    ? `tok IN (SELECT tok FROM ${db}.lexicon WHERE startsWith(word, ${value}))`
    : `tok = sipHash64(${value})`;
}

/** A lexeme's or prefix's key: each distinct one is read once. */
const valKey = (node: { lexeme: string; prefix: boolean }) => `${node.prefix ? '*' : '='}${node.lexeme}`;

class Evaluation {
  /** Each distinct lexeme or prefix: its slot and how a token row is recognised as it. */
  readonly vals = new Map<string, { alias: string; match: string }>();
  /** Aliased expressions of the grouped SELECT, in dependency order. */
  readonly columns: string[] = [];
  private readonly spans = new Map<string, Span>();
  private lambda = 0;

  /**
   * `joined`: each lexeme's positions are those of its own slice's row (`s<i>.pos`, the i-th lexeme's slice joined by
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

  private val(node: { lexeme: string; prefix: boolean }): string {
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

  /** The node inside a phrase operator. */
  span(node: TsNode): Span {
    const key = JSON.stringify(node);
    const known = this.spans.get(key);
    if (known) return known;
    let span: Span;
    switch (node.type) {
      case 'val':
        span = { pos: this.val(node), width: 0 };
        break;
      case 'phrase': {
        const left = this.span(node.left);
        const right = this.span(node.right);
        const x = this.x();
        span = {
          pos: this.alias(
            `arrayFilter(${x} -> has(${left.pos}, ${x} - ${plus(node.distance, right.width)}), ${right.pos})`,
          ),
          width: plus(plus(node.distance, left.width), right.width),
        };
        break;
      }
      case 'or': {
        const alternatives = flattenOr(node).map((alternative) => this.span(alternative));
        const widths = alternatives.map((alt) => alt.width);
        if (widths.every((width) => width === widths[0])) {
          span = {
            pos: this.alias(`arrayConcat(${alternatives.map((alt) => alt.pos).join(', ')})`),
            width: widths[0]!,
          };
          break;
        }
        const matched = alternatives.map((alt) => `if(notEmpty(${alt.pos}), ${alt.width}, 0)`);
        const width = this.alias(`greatest(${matched.join(', ')})`);
        const shifted = alternatives.map((alt) => {
          const x = this.x();
          return `arrayMap(${x} -> ${x} + (${width} - ${alt.width}), ${alt.pos})`;
        });
        span = { pos: this.alias(`arrayConcat(${shifted.join(', ')})`), width };
        break;
      }
      default:
        // Never in a query of the language: the parser's queries make no AND or NOT under a phrase.
        throw new Error(
          `A tsquery "${node.type}" under a phrase operator is not supported by the analytics store`,
        );
    }
    this.spans.set(key, span);
    return span;
  }

  /** The node above the phrase operators: a boolean over the post's grouped tokens. */
  matches(node: TsNode): string {
    switch (node.type) {
      case 'val':
        return `notEmpty(${this.val(node)})`;
      case 'phrase':
        return `notEmpty(${this.span(node).pos})`;
      case 'and':
        return `(${this.matches(node.left)} AND ${this.matches(node.right)})`;
      case 'or':
        return `(${this.matches(node.left)} OR ${this.matches(node.right)})`;
      case 'not':
        return `NOT ${this.matches(node.operand)}`;
    }
  }
}

/** The lexemes (as `val` keys) every match of `node` has: both sides' of a phrase or an AND, those of each side of an OR. */
function required(node: TsNode): Set<string> {
  switch (node.type) {
    case 'val':
      return new Set([valKey(node)]);
    case 'phrase':
    case 'and':
      return new Set([...required(node.left), ...required(node.right)]);
    case 'or': {
      const right = required(node.right);
      return new Set([...required(node.left)].filter((key) => right.has(key)));
    }
    case 'not':
      return new Set();
  }
}

/** Whether every match of `node` has every lexeme of it, none of them a prefix (a prefix has rows of many tokens). */
export function joinable(node: TsNode): boolean {
  const vals = new Set<string>();
  const visit = (n: TsNode): boolean => {
    if (n.type === 'val') return !n.prefix && (vals.add(valKey(n)), true);
    if (n.type === 'not') return visit(n.operand);
    return visit(n.left) && visit(n.right);
  };
  if (!visit(node)) return false;
  const need = required(node);
  return vals.size > 1 && [...vals].every((key) => need.has(key));
}

function flattenOr(node: TsNode): TsNode[] {
  return node.type === 'or' ? [...flattenOr(node.left), ...flattenOr(node.right)] : [node];
}

/**
 * The rows of the first lexeme's slice of the posts `tree` matches, for a tree whose every match has every lexeme of
 * it, none a prefix (the caller checks `joinable`): the lexemes' slices joined by post (each lexeme one row a post),
 * the tree evaluated over their positions, 4–5× cheaper than grouping the slices' rows by post
 * (docs/analytics-engine.md, Speed at 10M). Each row has `post` and the token table's `columns`, each post once.
 */
export function tsqueryRows(
  tree: TsNode,
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
 * one lexeme or prefix reads its slice alone; a tree whose every match has every one of its lexemes joins their
 * slices by post (tsqueryRows); anything else groups the slices of its lexemes per post and checks positions only for
 * posts that have them.
 */
export function tsquerySet(tree: TsNode, params: StoreParams, db: string, range: string): string {
  // Prefixes find their tokens in the lexicon: a subquery, which the primary key serves only with this setting.
  const settings = 'SETTINGS use_index_for_in_with_subqueries = 1';
  if (tree.type === 'val')
    return `SELECT post FROM ${db}.tok WHERE ${tokenMatch(tree, params, db)} AND ${range} ${settings}`;
  // Every match has every lexeme (none is a prefix): the lexemes' slices joined by post.
  if (joinable(tree)) return `SELECT post FROM (${tsqueryRows(tree, params, db, range, [])})`;
  const evaluation = new Evaluation(params, db);
  const having = evaluation.matches(tree);
  const tokens = [...evaluation.vals.values()].map((val) => val.match).join(' OR ');
  return `SELECT post FROM (SELECT post, ${evaluation.columns.join(', ')} FROM ${db}.tok
    WHERE (${tokens}) AND ${range} GROUP BY post HAVING ${having}) ${settings}`;
}
