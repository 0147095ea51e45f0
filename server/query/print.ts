// A tree as canonical query text: explicit AND, upper-case operators, canonical field values, and only the parentheses
// the precedence (NOT > NEAR > AND > OR) needs. Parsing the text gives the same tree back, and since every printed
// parenthesis stands for one the original query needed, the text stays within the nesting limit.
import type { ProximityOperand, QueryNode } from './ast';
import { listText } from './lists';

function printOperand(node: ProximityOperand): string {
  return node.type === 'or' ? `(${node.operands.map(printQuery).join(' OR ')})` : printQuery(node);
}

const group = (node: QueryNode, needsParentheses: boolean) =>
  needsParentheses ? `(${printQuery(node)})` : printQuery(node);

export function printQuery(node: QueryNode): string {
  switch (node.type) {
    case 'term':
      return node.value;
    case 'phrase':
      return `"${node.value}"${node.slop ? `~${node.slop}` : ''}`;
    case 'wildcard':
      return `${node.prefix}*`;
    case 'mask':
      return node.value;
    case 'cased':
      return `{${node.value}}`;
    case 'hashtag':
      return `#${node.value}`;
    case 'mention':
      return `@${node.value}`;
    case 'field':
      return `${node.field}:${node.value}`;
    case 'list':
      return listText(node);
    case 'not': {
      const { operand } = node;
      return `NOT ${group(operand, operand.type === 'and' || operand.type === 'or' || operand.type === 'near')}`;
    }
    case 'near':
      return `${printOperand(node.left)} NEAR/${node.distance}${node.ordered ? 'f' : ''} ${printOperand(node.right)}`;
    case 'and':
      return node.operands
        .map((operand) => group(operand, operand.type === 'or' || operand.type === 'and'))
        .join(' AND ');
    case 'or':
      return node.operands.map((operand) => group(operand, operand.type === 'or')).join(' OR ');
  }
}
