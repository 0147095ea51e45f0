// A workspace's lists in queries: `list(name)` (words and phrases), `author:list(name)` (handles) and
// `site:list(name)` (sites). The parser keeps a reference as a `list` node and checks it against the workspace's lists
// when it is given them (parser.ts); expandLists replaces each reference by the OR of the list's current items just
// before the query is evaluated, so editing a list changes every query that reads it on its next evaluation.
import type { ListKind, ListNode, QueryNode } from './ast';
import { QuerySyntaxError } from './errors';
import { phraseNode, wordNode } from './terms';

/** A list as the query language reads it: its kind and its items (as stored: each valid for its kind). */
interface QueryList {
  kind: ListKind;
  items: readonly string[];
}

/** The workspace's lists by name (lower case). */
export type QueryLists = ReadonlyMap<string, QueryList>;

/** A list's name: lower-case letters, digits, _ and -, 1 to 40 characters. */
export const LIST_NAME = /^[a-z0-9_-]{1,40}$/;

/** The field a kind of list is read by, as written before `list(…)` (none for words). */
const LIST_FIELD: Record<ListKind, 'author' | 'site' | null> = {
  authors: 'author',
  sites: 'site',
  words: null,
};

const KIND_WRITTEN: Record<ListKind, string> = {
  authors: 'a list of authors (author:list(…))',
  sites: 'a list of sites (site:list(…))',
  words: 'a list of words (list(…))',
};

/** How a reference is written: `author:list(competitors)`. */
export function listText(node: ListNode): string {
  const field = LIST_FIELD[node.kind];
  return `${field ? `${field}:` : ''}list(${node.name})`;
}

/**
 * One item of a list of `kind` as the leaf it stands for, or a QuerySyntaxError (column 1 of the item) saying why it
 * cannot be one: a handle for authors, a domain or address for sites, one word or a phrase (words separated by
 * spaces) for words.
 */
export function listItemNode(kind: ListKind, item: string): QueryNode {
  const text = item.trim();
  if (text === '') throw new QuerySyntaxError('An item is empty', 1, 0);
  const field = LIST_FIELD[kind];
  if (field) {
    const node = /\s/.test(text) ? null : fieldLeaf(`${field}:${text}`);
    if (node?.type !== 'field' || node.field !== field) {
      const what = field === 'author' ? 'a handle' : 'a domain such as bbc.co.uk, or an address';
      throw new QuerySyntaxError(`"${text}" is not ${what}`, 1, text.length);
    }
    return node;
  }
  if (/\s/.test(text)) return phraseNode(text, 1, text.length);
  const node = wordNode(text, 1);
  if (node.type !== 'term') {
    throw new QuerySyntaxError(
      `"${text}" is not a word or phrase (no fields, tags or wildcards)`,
      1,
      text.length,
    );
  }
  return node;
}

/** A field's leaf, or null when the value is not one. */
function fieldLeaf(word: string): QueryNode | null {
  try {
    return wordNode(word, 1);
  } catch (error) {
    if (error instanceof QuerySyntaxError) return null;
    throw error;
  }
}

/** The message for a reference the workspace's lists cannot answer, or null when it can. */
export function listProblem(node: ListNode, lists: QueryLists): string | null {
  const list = lists.get(node.name);
  if (!list) return `No list named ${node.name} in this workspace`;
  if (list.kind !== node.kind) {
    return `${node.name} is ${KIND_WRITTEN[list.kind]}, not ${KIND_WRITTEN[node.kind]}`;
  }
  return null;
}

/** For evaluators given a tree whose lists were not expanded: a programming error, not the user's. */
export function unexpandedList(node: ListNode): Error {
  return new Error(`${listText(node)} was not expanded before the query was evaluated`);
}

const orOf = (nodes: QueryNode[]): QueryNode => {
  const flat = nodes.flatMap((node) => (node.type === 'or' ? node.operands : [node]));
  return flat.length === 1 ? flat[0]! : { type: 'or', operands: flat };
};

/**
 * `tree` with every list reference replaced by the OR of the list's items (a list of one item: the item), still
 * canonical (an OR in an OR is flattened). References the lists cannot answer throw (the parser, given the same
 * lists, reports them with their column first).
 */
export function expandLists(tree: QueryNode, lists: QueryLists): QueryNode {
  const expand = (node: QueryNode): QueryNode => {
    switch (node.type) {
      case 'list': {
        const problem = listProblem(node, lists);
        if (problem) throw new QuerySyntaxError(problem, 1, 0);
        return orOf(lists.get(node.name)!.items.map((item) => listItemNode(node.kind, item)));
      }
      case 'not':
        return { type: 'not', operand: expand(node.operand) };
      case 'and': {
        const operands = node.operands.map(expand);
        return { type: 'and', operands };
      }
      case 'or':
        return orOf(node.operands.map(expand));
      default:
        return node;
    }
  };
  return expand(tree);
}

/** The names of the lists `tree` reads, in order of first use. */
export function listNames(tree: QueryNode): string[] {
  const names = new Set<string>();
  const walk = (node: QueryNode) => {
    if (node.type === 'list') names.add(node.name);
    else if (node.type === 'not') walk(node.operand);
    else if (node.type === 'and' || node.type === 'or') node.operands.forEach(walk);
  };
  walk(tree);
  return [...names];
}
