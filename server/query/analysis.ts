// What a query tree reads: the field each leaf tests, and the questions the dashboards choose their data source by —
// whether a query reads nothing but the platform and the language (all that a rollup or author_post_times row keeps
// of a post), and whether it reads the author's profile. Which conditions the search index finds is searchIndexed in
// compile.ts, beside the SQL it describes.
import type { QueryField, QueryNode } from './ast';

/** The field each leaf of a query tests, null for a leaf that is not a field (a term, phrase, hashtag, NEAR, …). */
function leafFields(node: QueryNode): Array<QueryField | null> {
  switch (node.type) {
    case 'field':
      return [node.field];
    case 'not':
      return leafFields(node.operand);
    case 'and':
    case 'or':
      return node.operands.flatMap(leafFields);
    default:
      return [null];
  }
}

/**
 * Whether a query reads nothing but the platform and the language: none (every post), or platform: and lang:
 * however combined with AND, OR and NOT.
 */
export const readsOnlyPlatformAndLanguage = (node: QueryNode | null) =>
  node === null || leafFields(node).every((field) => field === 'platform' || field === 'lang');

/** Whether a query reads the author's profile (author:, country:). */
export const readsProfile = (node: QueryNode | null) =>
  node !== null && leafFields(node).some((field) => field === 'author' || field === 'country');
