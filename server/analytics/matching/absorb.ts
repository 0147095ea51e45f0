// Boolean absorption before a query is compiled for the store: an OR operand that can only match posts another
// operand, a single word, already matches is dropped (`nova OR "nova x"` is `nova`), and so is a repeated word. Brand
// queries are written that way (a name, then the name with each product), and a listening query's lists add more: a
// phrase, NEAR or cased word costs a join or a recheck of its posts, a word one slice. Nothing else changes: the
// matches are the same posts (test/server/analytics/absorb.test.ts holds it to the reference evaluator).
import type { QueryNode } from '@server/query/index';
import { leafText, matchMode } from '@server/query/terms';
import { lowerText, wordTree, type WordTree } from './words';

/** The one lower-cased word a plain term matches as a whole word, or null (a phrase, a substring term, anything else). */
function soleWord(node: QueryNode): string | null {
  if (node.type !== 'term' || matchMode(node.value) !== 'words') return null;
  const tree = wordTree(node);
  return tree?.type === 'val' && !tree.prefix ? tree.word : null;
}

/** Whether every match of a word tree has `word` among its words (a whole word, not as a prefix). */
function treeHas(tree: WordTree, word: string): boolean {
  switch (tree.type) {
    case 'val':
      return !tree.prefix && tree.word === word;
    case 'phrase':
    case 'loose':
      return tree.words.some((val) => treeHas(val, word));
    case 'near':
      return treeHas(tree.left, word) || treeHas(tree.right, word);
    case 'or':
      return tree.operands.every((operand) => treeHas(operand, word));
  }
}

/** Whether every post `node` matches has the whole word `word` (false when that cannot be told from the tree). */
function needs(node: QueryNode, word: string): boolean {
  switch (node.type) {
    case 'term':
    case 'phrase':
    case 'near': {
      // A term or phrase matched as a substring (CJK, emoji) is not matched by words.
      if (node.type !== 'near' && matchMode(leafText(node)) !== 'words') return false;
      const tree = wordTree(node);
      return tree !== null && treeHas(tree, word);
    }
    case 'cased':
      return lowerText(node.value) === word;
    case 'and':
      return node.operands.some((operand) => needs(operand, word));
    default:
      return false;
  }
}

function absorb(node: QueryNode): QueryNode {
  switch (node.type) {
    case 'not': {
      const operand = absorb(node.operand);
      return operand === node.operand ? node : { type: 'not', operand };
    }
    case 'and': {
      const operands = node.operands.map(absorb);
      return operands.every((operand, i) => operand === node.operands[i]) ? node : { type: 'and', operands };
    }
    case 'or': {
      const operands = node.operands.map(absorb);
      const words = operands.map(soleWord);
      // An operand goes when it needs the word of another word operand: any before it, or (unless it is a word
      // itself, kept as the first of its repeats) any after it.
      const absorbedAt = (i: number) =>
        words.some(
          (word, j) => word !== null && j !== i && (j < i || words[i] === null) && needs(operands[i]!, word),
        );
      const kept = operands.filter((_, i) => !absorbedAt(i));
      if (kept.length === 1) return kept[0]!;
      const same =
        kept.length === node.operands.length && kept.every((operand, i) => operand === node.operands[i]);
      return same ? node : { type: 'or', operands: kept };
    }
    default:
      return node;
  }
}

const ABSORBED = new WeakMap<QueryNode, QueryNode>();

/**
 * The query as the store evaluates it: `node` with absorbed OR operands dropped (the same matches). The same tree for
 * the same node, so that the candidate sets' `given` nodes (candidates.ts) are found in the condition compiled after.
 */
export function absorbed(node: QueryNode): QueryNode {
  const known = ABSORBED.get(node);
  if (known) return known;
  const result = absorb(node);
  ABSORBED.set(node, result);
  ABSORBED.set(result, result);
  return result;
}
