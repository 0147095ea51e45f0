// Links of the generated corpora (corpus.ts), drawn apart from the posts so that a corpus's other fields stay those of
// generatedCorpus for its seed: the domains a post links to, and its address at its source.
import fc from 'fast-check';
import type { GeneratedPost } from './corpus';

/** Links as sources give them: URLs and hosts in any case, subdomains of one registrable domain, repeats. */
const LINKS = [
  'https://News.BBC.co.uk/story',
  'bbc.co.uk',
  'm.youtube.com/watch?v=1',
  'https://www.youtube.com',
  'example.com',
  'EXAMPLE.com/a',
  'https://blog.example.com/b',
  'b.co',
  'shop.murmur.app',
];

/**
 * `posts` with linked domains, the same for the same seed (drawn apart, so the posts' other fields stay those of
 * generatedCorpus for its seed); a post in three without links.
 */
export const withDomains = (posts: GeneratedPost[], seed: number): GeneratedPost[] => {
  const links = fc.sample(
    fc.array(fc.oneof(fc.constant<string[]>([]), fc.array(fc.constantFrom(...LINKS), { maxLength: 3 })), {
      minLength: posts.length,
      maxLength: posts.length,
    }),
    { seed, numRuns: 1 },
  )[0]!;
  return posts.map((post, i) => ({ ...post, domains: links[i]! }));
};

/**
 * Addresses as sources give them: Reddit permalinks of each host form and case (the subreddit of a Reddit post's),
 * Reddit addresses that name no subreddit (a user's page, a name too short), and others' addresses, a Reddit-like path
 * among them. Any post may have any of them: a permalink on another platform's post names no subreddit of it.
 */
const URLS = [
  'https://www.reddit.com/r/Coffee/comments/1a2b3c/my_morning_latte/',
  'https://old.reddit.com/r/tea/comments/xyz/',
  'https://reddit.com/r/coffee',
  'https://np.reddit.com/r/LatteArt/comments/9/',
  'http://WWW.REDDIT.COM/r/Tea?sort=new',
  'https://www.reddit.com/user/anon/comments/5/',
  'https://www.reddit.com/r/a/comments/1',
  'https://example.com/r/coffee/',
  'https://x.com/alice/status/1',
];

/** `posts` with addresses, the same for the same seed (drawn apart, like withDomains); a post in four without. */
export const withUrls = (posts: GeneratedPost[], seed: number): GeneratedPost[] => {
  const urls = fc.sample(
    fc.array(fc.option(fc.constantFrom(...URLS), { freq: 4, nil: undefined }), {
      minLength: posts.length,
      maxLength: posts.length,
    }),
    { seed, numRuns: 1 },
  )[0]!;
  return posts.map((post, i) => (urls[i] === undefined ? post : { ...post, url: urls[i] }));
};
