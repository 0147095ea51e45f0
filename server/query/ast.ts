// The query language's syntax tree. Trees from the parser are canonical: an `and` has no `and` operand, an `or` no
// `or` operand, and leaf values are stored the way they are compared (see each type).

export const QUERY_FIELDS = [
  'author',
  'platform',
  'lang',
  'country',
  'is',
  'followers',
  'engagement',
  'site',
  'instance',
  'subreddit',
] as const;
export type QueryField = (typeof QUERY_FIELDS)[number];

/** A word, matched through the full-text vector (or as a substring, see terms.ts). Kept as typed. */
interface TermNode {
  type: 'term';
  value: string;
}

/**
 * Words in this order, next to each other. Whitespace collapsed to single spaces, trimmed. With `slop` (written
 * `"flat white"~3`): its words in any order, within a run of as many positions as it has words plus `slop`.
 */
export interface PhraseNode {
  type: 'phrase';
  value: string;
  slop?: number;
}

/** Words starting with `prefix` (written `prefix*`). */
interface WildcardNode {
  type: 'wildcard';
  prefix: string;
}

/**
 * Words that fit a mask (written `colo?r`, `organi?ation*`): each `?` one character, a final `*` any rest; at least
 * two characters before the first `?`. Kept as typed.
 */
export interface MaskNode {
  type: 'mask';
  value: string;
}

/** A word in exactly this case, whole (written `{NASA}`): one run of letters, marks and digits. */
export interface CasedNode {
  type: 'cased';
  value: string;
}

/** A hashtag of the post, lower case, without '#'. */
interface HashtagNode {
  type: 'hashtag';
  value: string;
}

/** An account mentioned in the post, lower case, without '@'. */
interface MentionNode {
  type: 'mention';
  value: string;
}

/**
 * A filter: author (the author's handle, lower case, no '@'), platform (one of PLATFORMS), lang (the post's language,
 * lower case), country (the author's country, upper case), is (the post's kind: original, reply, repost or quote), or
 * a range of whole numbers, both ends included, `*` for none: followers (the author's) and engagement (the post's
 * likes + comments + shares), canonical `[1000 TO *]` (fieldRange reads it); site (a domain the post links to, its
 * registrable domain: `news.bbc.co.uk` → `bbc.co.uk`, as the posts' domains are stored), instance (the fediverse
 * server of the author's handle, `user@instance`, lower case), subreddit (a Reddit post's community, from its permalink
 * `https://www.reddit.com/r/<name>/…`, lower case without `r/`: subreddit.ts).
 */
export interface FieldNode {
  type: 'field';
  field: QueryField;
  value: string;
}

interface NotNode {
  type: 'not';
  operand: QueryNode;
}

interface AndNode {
  type: 'and';
  /** Two or more. */
  operands: QueryNode[];
}

interface OrNode {
  type: 'or';
  /** Two or more. */
  operands: QueryNode[];
}

/** What NEAR/n can join: words, phrases and wildcards, or an OR of them. */
export type ProximityLeaf = TermNode | PhraseNode | WildcardNode | MaskNode;
export type ProximityOperand = ProximityLeaf | { type: 'or'; operands: ProximityLeaf[] };

/** `left` and `right` at most `distance` word positions apart, in either order (`ordered`: right after left only). */
export interface NearNode {
  type: 'near';
  distance: number;
  /** NEAR/nf: `right` after `left`. Absent for NEAR/n. */
  ordered?: true;
  left: ProximityOperand;
  right: ProximityOperand;
}

/** What a workspace's list holds: handles (`author:list(x)`), sites (`site:list(x)`) or words and phrases (`list(x)`). */
export type ListKind = 'authors' | 'sites' | 'words';

/**
 * A reference to one of the workspace's lists (written `list(name)`, `author:list(name)`, `site:list(name)`), kept in
 * the tree and the canonical text as written; expandLists (lists.ts) replaces it by the OR of the list's items before
 * the query is evaluated. Name: lower case.
 */
export interface ListNode {
  type: 'list';
  kind: ListKind;
  name: string;
}

export type LeafNode =
  | TermNode
  | PhraseNode
  | WildcardNode
  | MaskNode
  | CasedNode
  | HashtagNode
  | MentionNode
  | FieldNode
  | ListNode;
export type QueryNode = LeafNode | NotNode | AndNode | OrNode | NearNode;
