// Recursive descent over the tokens, loosest first:
//   query   := or EOF
//   or      := and ( OR and )*
//   and     := near ( [AND] near )*        adjacent terms are ANDed
//   near    := unary ( NEAR/n unary )?     one NEAR per pair: a NEAR/2 b NEAR/3 c is refused
//   unary   := NOT unary | primary
//   primary := word | "phrase" | {word} | list | ( or )
// so NOT binds tightest, then NEAR, then AND, then OR. Throws QuerySyntaxError.
import { QUERY_LIMITS } from '@contract/social-query';
import type { ListKind, ListNode, NearNode, ProximityLeaf, ProximityOperand, QueryNode } from './ast';
import { QuerySyntaxError } from './errors';
import { operatorText, tokenize, type NearToken, type OperatorToken, type Token } from './lexer';
import { casedNode, leafText, matchMode, phraseNode, wordNode } from './terms';
import { LIST_NAME, listProblem, type QueryLists } from './lists';

/** The kind of list a field before `list(…)` reads (`url:` is `site:`). */
const LIST_KIND_OF: Record<string, ListKind> = { author: 'authors', site: 'sites', url: 'sites' };

const STARTS_OPERAND = new Set<Token['kind']>(['word', 'phrase', 'cased', 'list', 'lparen', 'not']);

function isProximityLeaf(node: QueryNode): node is ProximityLeaf {
  return node.type === 'term' || node.type === 'phrase' || node.type === 'wildcard' || node.type === 'mask';
}

class Parser {
  private position = 0;
  private depth = 0;
  private terms = 0;

  constructor(
    private readonly tokens: Token[],
    /** The workspace's lists: references are checked against them and count their items as terms. */
    private readonly lists?: QueryLists,
  ) {}

  parse(): QueryNode {
    if (this.peek().kind === 'eof') throw new QuerySyntaxError('The query is empty', 1, 0);
    const node = this.parseOr();
    const token = this.peek();
    // Anything the grammar could continue with was consumed: what is left is a stray ")".
    if (token.kind !== 'eof') throw this.unexpected(token);
    return node;
  }

  private peek(): Token {
    return this.tokens[this.position]!;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.position += 1;
    return token;
  }

  /** Only a ")" can be left where an operand or the end was expected. */
  private unexpected(token: Token) {
    return new QuerySyntaxError(`Unexpected ")" at column ${token.column}`, token.column, token.length);
  }

  private parseOr(): QueryNode {
    const operands = [this.parseAnd()];
    while (this.peek().kind === 'or') {
      const operator = this.next() as OperatorToken;
      operands.push(this.parseAnd(operator));
    }
    const flat = operands.flatMap((node) => (node.type === 'or' ? node.operands : [node]));
    return flat.length === 1 ? flat[0]! : { type: 'or', operands: flat };
  }

  private parseAnd(after?: OperatorToken): QueryNode {
    const operands = [this.parseNear(after)];
    for (;;) {
      const token = this.peek();
      if (token.kind === 'and') operands.push(this.parseNear(this.next() as OperatorToken));
      else if (STARTS_OPERAND.has(token.kind)) operands.push(this.parseNear());
      else break;
    }
    const flat = operands.flatMap((node) => (node.type === 'and' ? node.operands : [node]));
    return flat.length === 1 ? flat[0]! : { type: 'and', operands: flat };
  }

  private parseNear(after?: OperatorToken): QueryNode {
    const left = this.parseUnary(after);
    if (this.peek().kind !== 'near') return left;
    const operator = this.next() as NearToken;
    const right = this.parseUnary(operator);
    const following = this.peek();
    if (following.kind === 'near') {
      throw new QuerySyntaxError(
        `${operatorText(following)} at column ${following.column} follows another NEAR: join the pairs with AND`,
        following.column,
        following.length,
      );
    }
    const node: NearNode = {
      type: 'near',
      distance: operator.distance,
      ...(operator.ordered && { ordered: true as const }),
      left: this.proximityOperand(left, operator),
      right: this.proximityOperand(right, operator),
    };
    return node;
  }

  private proximityOperand(node: QueryNode, operator: NearToken): ProximityOperand {
    const leaves = node.type === 'or' ? node.operands : [node];
    const name = operatorText(operator);
    const fail = (message: string) => new QuerySyntaxError(message, operator.column, operator.length);
    if (!leaves.every(isProximityLeaf)) {
      throw fail(
        `${name} at column ${operator.column} can only join words, phrases, wildcards or (… OR …) groups of them`,
      );
    }
    const loose = leaves.find((leaf) => leaf.type === 'phrase' && leaf.slop !== undefined);
    if (loose) {
      throw fail(
        `${name} at column ${operator.column} cannot join a phrase with ~n: write the words apart, as a NEAR of them`,
      );
    }
    const unspaced = leaves.find((leaf) => matchMode(leafText(leaf)) === 'substring');
    if (unspaced) {
      throw fail(
        `${name} at column ${operator.column} cannot use "${leafText(unspaced)}": Chinese, Japanese, Korean, ` +
          'Thai and emoji are matched as text, without word positions',
      );
    }
    return node.type === 'or' ? { type: 'or', operands: leaves } : (node as ProximityLeaf);
  }

  private parseUnary(after?: OperatorToken): QueryNode {
    if (this.peek().kind !== 'not') return this.parsePrimary(after);
    const operator = this.next() as OperatorToken;
    return { type: 'not', operand: this.parseUnary(operator) };
  }

  private countTerm(token: Token, terms = 1) {
    this.terms += terms;
    const max = QUERY_LIMITS.maxTerms;
    if (this.terms > max) {
      throw new QuerySyntaxError(
        `Too many terms: at most ${max}, and term ${max + 1} is at column ${token.column}`,
        token.column,
        token.length,
      );
    }
  }

  private parsePrimary(after?: OperatorToken): QueryNode {
    const token = this.peek();
    switch (token.kind) {
      case 'word':
        this.next();
        this.countTerm(token);
        return wordNode(token.text, token.column);
      case 'phrase':
        this.next();
        this.countTerm(token);
        return phraseNode(token.text, token.column, token.length, token.slop);
      case 'cased':
        this.next();
        this.countTerm(token);
        return casedNode(token.text, token.column, token.length);
      case 'list':
        this.next();
        return this.listNode(token);
      case 'lparen':
        return this.parseGroup(token);
      default:
        break;
    }
    if (after) {
      const text = `Expected a term after "${operatorText(after)}" at column ${after.column}`;
      throw new QuerySyntaxError(text, after.column, after.length);
    }
    if (token.kind === 'and' || token.kind === 'or' || token.kind === 'near') {
      const text = `Expected a term before "${operatorText(token)}" at column ${token.column}`;
      throw new QuerySyntaxError(text, token.column, token.length);
    }
    throw this.unexpected(token);
  }

  private listNode(token: Extract<Token, { kind: 'list' }>): ListNode {
    const { column, length } = token;
    const fail = (message: string) => new QuerySyntaxError(message, column, length);
    const kind = token.field === null ? 'words' : LIST_KIND_OF[token.field.toLowerCase()];
    if (!kind) throw fail(`Only author: and site: read a list, not "${token.field}:" at column ${column}`);
    if (!LIST_NAME.test(token.name)) {
      throw fail(
        `Invalid list name "${token.name}" at column ${column} (lower-case letters, digits, _ and -, 1 to 40)`,
      );
    }
    const node: ListNode = { type: 'list', kind, name: token.name };
    if (!this.lists) {
      this.countTerm(token);
      return node;
    }
    const problem = listProblem(node, this.lists);
    if (problem) throw fail(`${problem}, at column ${column}`);
    this.countTerm(token, this.lists.get(node.name)!.items.length);
    return node;
  }

  private parseGroup(open: Token): QueryNode {
    this.next();
    this.depth += 1;
    if (this.depth > QUERY_LIMITS.maxDepth) {
      throw new QuerySyntaxError(
        `Too many nested parentheses at column ${open.column}: at most ${QUERY_LIMITS.maxDepth} levels`,
        open.column,
        1,
      );
    }
    const missingClose = () =>
      new QuerySyntaxError(
        `Missing closing parenthesis for the "(" at column ${open.column}`,
        open.column,
        1,
      );
    const first = this.peek();
    if (first.kind === 'eof') throw missingClose();
    if (first.kind === 'rparen') {
      const length = first.column - open.column + 1;
      throw new QuerySyntaxError(`Empty parentheses at column ${open.column}`, open.column, length);
    }
    const inner = this.parseOr();
    // The grammar consumes everything else, so what follows the group is ")" or the end.
    if (this.next().kind !== 'rparen') throw missingClose();
    this.depth -= 1;
    return inner;
  }
}

/**
 * The tree of a query, or a QuerySyntaxError for the first problem found. With the workspace's `lists`, each list
 * reference must name one of them of its kind, and counts its items as terms (expandLists reads them later).
 */
export function parse(text: string, lists?: QueryLists): QueryNode {
  return new Parser(tokenize(text), lists).parse();
}
