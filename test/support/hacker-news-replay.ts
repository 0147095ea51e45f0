// A local stand-in for Hacker News search on Algolia (https://hn.algolia.com/api): GET /search_by_date over an
// in-memory list of hits, answering as the API does — newest first, `tags` (one tag, or "(a,b)" for either),
// `numericFilters` on created_at_i (comma-separated, combined with AND), `hitsPerPage` and `page` (0-based, at most
// 1,000 hits reachable), with the answer's paging fields (nbHits, page, nbPages, hitsPerPage). The hits are shaped like
// the recorded fixture test/fixtures/scraping/hackernews-search-by-date.json.
import type { Reply, Route } from './replay-server';

export interface HackerNewsHit {
  objectID: string;
  created_at: string;
  created_at_i: number;
  author: string | null;
  title?: string | null;
  url?: string | null;
  story_text?: string | null;
  comment_text?: string | null;
  points?: number | null;
  num_comments?: number | null;
  story_id?: number | null;
  story_title?: string | null;
  parent_id?: number | null;
  _tags: string[];
  [field: string]: unknown;
}

/** `count` hits, newest first from `newest` (Unix seconds), `stepSeconds` apart; every third one a story. */
export function hackerNewsHits(
  count: number,
  { newest = 1_767_225_600, stepSeconds = 60, idFrom = 40_000_000, topic = 'coffee' } = {},
): HackerNewsHit[] {
  return Array.from({ length: count }, (_, i) => {
    const id = idFrom + count - i;
    const at = newest - i * stepSeconds;
    const story = i % 3 === 0;
    const author = `hn_user_${i % 17}`;
    return story
      ? {
          objectID: String(id),
          created_at: new Date(at * 1000).toISOString(),
          created_at_i: at,
          author,
          title: `Show HN: a ${topic} roaster I built, number ${id}`,
          url: `https://roaster${i % 5}.example.com/post/${id}`,
          story_text: null,
          points: (i * 7) % 300,
          num_comments: (i * 3) % 40,
          story_id: null,
          parent_id: null,
          _tags: ['story', `author_${author}`, `story_${id}`],
        }
      : {
          objectID: String(id),
          created_at: new Date(at * 1000).toISOString(),
          created_at_i: at,
          author,
          comment_text: `<p>I roast my own ${topic} at home &amp; it is <i>wonderful</i>, item ${id}.</p>`,
          points: null,
          num_comments: null,
          story_id: id - 1,
          story_title: `Show HN: a ${topic} roaster`,
          parent_id: id - 1,
          _tags: ['comment', `author_${author}`, `story_${id - 1}`],
        };
  });
}

const COMPARE = /^created_at_i(<=|>=|<|>|=)(\d+)$/;

function matches(hit: HackerNewsHit, tags: string | null, filters: string[]) {
  if (tags) {
    const wanted = tags.replace(/^\(|\)$/g, '').split(',');
    if (!wanted.some((tag) => hit._tags.includes(tag))) return false;
  }
  return filters.every((filter) => {
    const [, op, value] = COMPARE.exec(filter) ?? [];
    const n = Number(value);
    const t = hit.created_at_i;
    return op === '<=' ? t <= n : op === '>=' ? t >= n : op === '<' ? t < n : op === '>' ? t > n : t === n;
  });
}

export interface HackerNewsReplay {
  /** The index: tests add, edit and remove hits between runs. */
  hits: HackerNewsHit[];
  route: Route;
}

/**
 * The search_by_date route over `hits`. `before(url, count)` may answer instead (a 429, a hang, a 500) for the
 * `count`th request (from 1);
 * `delayMs` slows every answer (a worker to kill mid-run).
 */
export function hackerNewsReplay(
  hits: HackerNewsHit[],
  options: { before?: (url: URL, count: number) => Reply | undefined; delayMs?: number } = {},
): HackerNewsReplay {
  // Requests this replay answered (the server's own count is per path, across tests).
  let count = 0;
  const replay: HackerNewsReplay = {
    hits,
    route: (url) => {
      count += 1;
      const early = options.before?.(url, count);
      if (early) return early;
      const filters = (url.searchParams.get('numericFilters') ?? '').split(',').filter(Boolean);
      if (filters.some((f) => !COMPARE.test(f))) {
        return { status: 400, body: JSON.stringify({ message: 'invalid numericFilters', status: 400 }) };
      }
      const hitsPerPage = Math.min(1000, Number(url.searchParams.get('hitsPerPage') ?? 20));
      const page = Number(url.searchParams.get('page') ?? 0);
      const found = replay.hits
        .filter((hit) => matches(hit, url.searchParams.get('tags'), filters))
        .sort((a, b) => b.created_at_i - a.created_at_i || Number(b.objectID) - Number(a.objectID));
      const reachable = found.slice(0, 1000);
      const body = {
        hits: reachable.slice(page * hitsPerPage, (page + 1) * hitsPerPage),
        nbHits: found.length,
        page,
        nbPages: Math.ceil(reachable.length / hitsPerPage),
        hitsPerPage,
        exhaustiveNbHits: true,
        query: url.searchParams.get('query') ?? '',
        params: url.search.slice(1),
        processingTimeMS: 1,
      };
      return { body: JSON.stringify(body), ...(options.delayMs && { delayMs: options.delayMs }) };
    },
  };
  return replay;
}
