// Completion for the query editor: field operators and their values, the boolean operators and NEAR/n, and the
// hashtags, mentions, authors and countries of the posts on screen (cheap: no extra request; what the preview or the
// result list has loaded). Platforms and languages come from the contract's value lists.
import type { Completion, CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import { PLATFORM_VALUES } from '@contract/social-scope';
import { workspaceLanguages } from '@contract/workspaces';

/** Terms seen in posts the page has loaded. */
export interface QuerySuggestions {
  hashtags: readonly string[];
  mentions: readonly string[];
  authors: readonly string[];
  countries: readonly string[];
}

export const NO_SUGGESTIONS: QuerySuggestions = { hashtags: [], mentions: [], authors: [], countries: [] };

const FIELDS: Completion[] = [
  { label: 'author:', type: 'property', detail: 'posts by a handle' },
  { label: 'platform:', type: 'property', detail: PLATFORM_VALUES.join(', ') },
  { label: 'lang:', type: 'property', detail: 'the post’s language' },
  { label: 'country:', type: 'property', detail: 'the author’s country' },
  { label: 'is:', type: 'property', detail: 'original, reply, repost, quote' },
  { label: 'followers:', type: 'property', detail: 'the author’s, as [1000 TO *]' },
  { label: 'engagement:', type: 'property', detail: 'likes + comments + shares, as [10 TO *]' },
  { label: 'site:', type: 'property', detail: 'a site the post links to, as bbc.co.uk (also url:)' },
  { label: 'instance:', type: 'property', detail: 'the author’s fediverse server, as mastodon.social' },
  { label: 'subreddit:', type: 'property', detail: 'a Reddit post’s community, as android or r/android' },
  { label: 'source:', type: 'property', detail: 'the platform: ' + PLATFORM_VALUES.join(', ') },
];

const OPERATORS: Completion[] = [
  { label: 'AND', type: 'keyword', detail: 'both (also implied)' },
  { label: 'OR', type: 'keyword', detail: 'either' },
  { label: 'NOT', type: 'keyword', detail: 'without' },
  { label: 'NEAR/3', type: 'keyword', detail: 'within 3 words, either order (1–20)' },
  { label: 'NEAR/3f', type: 'keyword', detail: 'the next term within 3 words after' },
];

const values = (items: readonly string[], type: string, prefix = ''): Completion[] =>
  items.map((item) => ({ label: `${prefix}${item}`, type }));

function fieldValues(field: string, suggestions: QuerySuggestions): Completion[] {
  switch (field) {
    case 'platform':
    case 'site':
      return values(PLATFORM_VALUES, 'enum');
    case 'lang':
      return values(workspaceLanguages, 'enum');
    case 'country':
      return values(suggestions.countries, 'enum');
    case 'author':
      return values(suggestions.authors, 'variable');
    case 'is':
      return values(['original', 'reply', 'repost', 'quote'], 'enum');
    default:
      return [];
  }
}

/** True when `pos` is inside a quoted phrase (an odd number of quotes before it). */
const insidePhrase = (text: string) => (text.match(/"/g)?.length ?? 0) % 2 === 1;

export function completeQuery(
  context: CompletionContext,
  suggestions: () => QuerySuggestions,
): CompletionResult | null {
  const before = context.state.doc.sliceString(0, context.pos);
  if (insidePhrase(before)) return null;
  const word = context.matchBefore(/[^\s()"]*/);
  if (!word || (word.from === word.to && !context.explicit)) return null;
  const text = word.text;
  const field = /^([A-Za-z]+):/.exec(text);
  if (field) {
    const options = fieldValues(field[1]!.toLowerCase(), suggestions());
    return options.length ? { from: word.from + field[0].length, options, validFor: /^[^\s()"]*$/ } : null;
  }
  if (text.startsWith('#')) return { from: word.from, options: values(suggestions().hashtags, 'text', '#') };
  if (text.startsWith('@')) return { from: word.from, options: values(suggestions().mentions, 'text', '@') };
  return { from: word.from, options: [...FIELDS, ...OPERATORS], validFor: /^[A-Za-z/\d]*$/ };
}

/** The suggestions of a list of posts, each list without duplicates, most frequent first. */
export function suggestionsFromPosts(
  posts: ReadonlyArray<{
    hashtags: readonly string[];
    mentions: readonly string[];
    author: { handle: string; country: string | null };
  }>,
): QuerySuggestions {
  const rank = (items: Iterable<string>) => {
    const counts = new Map<string, number>();
    for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([item]) => item);
  };
  return {
    hashtags: rank(posts.flatMap((post) => post.hashtags)),
    mentions: rank(posts.flatMap((post) => post.mentions)),
    authors: rank(posts.map((post) => post.author.handle.toLowerCase())),
    countries: rank(posts.flatMap((post) => (post.author.country ? [post.author.country] : []))),
  };
}
