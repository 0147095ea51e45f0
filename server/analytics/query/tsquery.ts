// A tsquery as PostgreSQL prints it (`'don' <-> 't'`, `( 'flat' <-> 'white' | 'latte' ) <2> 'x'`, `'barist':*`),
// read back into its tree. The store evaluates the very tree PostgreSQL built from the query's words (its parser,
// its cleanup of operands without lexemes), so nothing of PostgreSQL's text search is re-implemented but the matching.

export type TsNode =
  /** A lexeme; with `prefix`, every lexeme that starts with it (byte-wise, as PostgreSQL compares). */
  | { type: 'val'; lexeme: string; prefix: boolean }
  /** `left <distance> right`: right's first lexeme `distance` positions after left's last. */
  | { type: 'phrase'; distance: number; left: TsNode; right: TsNode }
  | { type: 'and' | 'or'; left: TsNode; right: TsNode }
  | { type: 'not'; operand: TsNode };

type Token =
  | { kind: 'val'; lexeme: string; prefix: boolean }
  | { kind: 'phrase'; distance: number }
  | { kind: '&' | '|' | '!' | '(' | ')' };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const fail = (): never => {
    throw new Error(`Unexpected tsquery text at ${i}: ${text}`);
  };
  while (i < text.length) {
    const char = text[i]!;
    if (char === ' ') {
      i += 1;
    } else if (char === "'") {
      // Quotes doubled and backslashes escaped, as tsquery's output writes them.
      let lexeme = '';
      i += 1;
      for (;;) {
        if (i >= text.length) fail();
        const c = text[i]!;
        if (c === "'" && text[i + 1] === "'") {
          lexeme += "'";
          i += 2;
        } else if (c === "'") {
          i += 1;
          break;
        } else if (c === '\\' && i + 1 < text.length) {
          lexeme += text[i + 1];
          i += 2;
        } else {
          lexeme += c;
          i += 1;
        }
      }
      let prefix = false;
      if (text[i] === ':') {
        const flags = /^:[*A-Da-d]+/.exec(text.slice(i))?.[0] ?? fail();
        prefix = flags.includes('*');
        i += flags.length;
      }
      tokens.push({ kind: 'val', lexeme, prefix });
    } else if (char === '<') {
      const operator = /^<(-|\d+)>/.exec(text.slice(i))?.[0] ?? fail();
      const distance = operator === '<->' ? 1 : Number(operator.slice(1, -1));
      tokens.push({ kind: 'phrase', distance });
      i += operator.length;
    } else if (char === '&' || char === '|' || char === '!' || char === '(' || char === ')') {
      tokens.push({ kind: char });
      i += 1;
    } else {
      fail();
    }
  }
  return tokens;
}

/**
 * The tree of PostgreSQL's printed tsquery; null for an empty one (a query whose words have no lexemes, which
 * matches nothing). Precedence as PostgreSQL's: `!`, then `<N>`, then `&`, then `|`, each left-associative (the
 * printer writes the parentheses any other grouping needs).
 */
export function parseTsquery(text: string): TsNode | null {
  const tokens = tokenize(text);
  if (tokens.length === 0) return null;
  let at = 0;
  const peek = () => tokens[at];
  const fail = (): never => {
    throw new Error(`Unexpected tsquery structure at token ${at}: ${text}`);
  };

  function primary(): TsNode {
    const token = tokens[at++] ?? fail();
    if (token.kind === 'val') return { type: 'val', lexeme: token.lexeme, prefix: token.prefix };
    if (token.kind === '!') return { type: 'not', operand: primary() };
    if (token.kind !== '(') return fail();
    const inner = or();
    if (tokens[at++]?.kind !== ')') fail();
    return inner;
  }
  function phrase(): TsNode {
    let node = primary();
    for (let token = peek(); token?.kind === 'phrase'; token = peek()) {
      at += 1;
      node = { type: 'phrase', distance: token.distance, left: node, right: primary() };
    }
    return node;
  }
  function and(): TsNode {
    let node = phrase();
    while (peek()?.kind === '&') {
      at += 1;
      node = { type: 'and', left: node, right: phrase() };
    }
    return node;
  }
  function or(): TsNode {
    let node = and();
    while (peek()?.kind === '|') {
      at += 1;
      node = { type: 'or', left: node, right: and() };
    }
    return node;
  }

  const tree = or();
  if (at !== tokens.length) fail();
  return tree;
}
