// A post as the matcher reads it, split once for every query: its words with their positions, its lower-cased text
// (substring terms), its hashtags, mentions and author. The rule is the store's and the reference evaluator's
// (server/query/README.md, "How words are matched"): a word is a maximal run of letters, combining marks and digits of
// the lower-cased text (String.prototype.toLowerCase, as ClickHouse's lowerUTF8), numbered 1, 2, 3 … in order.
import { subredditOf } from '../subreddit';

/**
 * What the matcher needs of a post: the fields the query language reads. A collected row (the import format,
 * docs/corpus-format.md) gives them as `text`, `platform`, `language`, `hashtags`, `mentions`, `author_handle`,
 * `author_country` and `url`.
 */
export interface MatchPost {
  text: string;
  platform: string;
  /** The post's language, a lower-case 2–3 letter code; null when unknown (`NOT lang:en` then holds). */
  language: string | null;
  /** Without '#' (compared lower-cased, as the importer stores them). */
  hashtags: readonly string[];
  /** Without '@' (compared lower-cased). */
  mentions: readonly string[];
  /** The author's handle without '@', any case. */
  handle: string;
  /** The author's country, an upper-case two-letter code; null when unknown. */
  country: string | null;
  /** original, reply, repost or quote (`is:`). */
  kind: string;
  /** Likes + comments + shares (`engagement:[a TO b]`). */
  engagement: number;
  /** The author's followers (`followers:[a TO b]`). */
  followers: number;
  /** The registrable domains the post links to, lower case (`site:`), as the importer stores them. */
  domains: readonly string[];
  /** The post's address at its source (a Reddit post's permalink names its subreddit: `subreddit:`); null when none. */
  url: string | null;
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** The lower-casing of the store (layout.ts) and of the reference evaluator. */
export const lowerText = (text: string) => text.toLowerCase();

/** The words of `text`, lower-cased, in order: a query term's or phrase's words, or a post's. */
export const textWords = (text: string): string[] => lowerText(text).match(WORD) ?? [];

/** A post split for matching. `words[i]` is at position i + 1. */
export interface PostView {
  post: MatchPost;
  lowered: string;
  words: string[];
  /** Each distinct word's positions, ascending. */
  positions: Map<string, number[]>;
  handle: string;
  hashtags: ReadonlySet<string>;
  mentions: ReadonlySet<string>;
  /** The subreddit of a Reddit post's permalink, lower case (subredditOf); null for any other post. */
  subreddit: string | null;
  /** The words in their own case, read once a case-sensitive term asks (casedWords). */
  cased?: ReadonlySet<string>;
}

/** The post's words as written (a case-sensitive term's test), split on first use. */
export const casedWords = (view: PostView): ReadonlySet<string> =>
  (view.cased ??= new Set(view.post.text.match(WORD) ?? []));

const lowerSet = (values: readonly string[]) => new Set(values.map(lowerText));

export function viewOf(post: MatchPost): PostView {
  const lowered = lowerText(post.text);
  const words = lowered.match(WORD) ?? [];
  const positions = new Map<string, number[]>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const at = positions.get(word);
    if (at) at.push(i + 1);
    else positions.set(word, [i + 1]);
  }
  return {
    post,
    lowered,
    words,
    positions,
    handle: lowerText(post.handle),
    hashtags: lowerSet(post.hashtags),
    mentions: lowerSet(post.mentions),
    subreddit: subredditOf(post.platform, post.url),
  };
}
