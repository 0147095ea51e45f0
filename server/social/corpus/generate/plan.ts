// A corpus as a pure function of its options: the profiles and the sequence of posts for a seed, size and window.
// The database loader (load.ts) and the unit tests (distributions on a sample) share it.
import { Clock, startOfUtcDay } from './clock';
import { PostGenerator, type GenPost } from './posts';
import { generateProfiles, type GenProfile } from './profiles';
import { TOPICS } from './topics';

export interface CorpusOptions {
  seed: number;
  posts: number;
  /** Length of the window in days (default 180). */
  days?: number;
  /** End of the window (exclusive, rounded down to a UTC midnight); default the start of today (UTC). */
  end?: Date | number;
}

export const DEFAULT_DAYS = 180;

/** About 15 posts per account on average, at least 200 accounts. */
function profileCountFor(posts: number): number {
  return Math.max(200, Math.round(posts / 15));
}

export interface CorpusPlan {
  seed: number;
  postCount: number;
  profiles: GenProfile[];
  clock: Clock;
  /** Generates the posts in order; call once. */
  posts(): Generator<GenPost>;
}

export function planCorpus(options: CorpusOptions): CorpusPlan {
  const days = options.days ?? DEFAULT_DAYS;
  if (!Number.isInteger(options.seed) || options.seed < 0 || options.seed > 0xffffffff)
    throw new Error('The seed must be an integer between 0 and 4294967295');
  if (!Number.isInteger(options.posts) || options.posts < 0) throw new Error('The post count must be ≥ 0');
  if (!Number.isInteger(days) || days < 1 || days > 3650) throw new Error('The window must be 1–3650 days');
  const end = startOfUtcDay(options.end === undefined ? Date.now() : Number(options.end));
  const profiles = generateProfiles(options.seed, profileCountFor(options.posts));
  const clock = new Clock(end, days, TOPICS);
  return {
    seed: options.seed,
    postCount: options.posts,
    profiles,
    clock,
    *posts() {
      const generator = new PostGenerator(options.seed, profiles, clock);
      for (let i = 0; i < options.posts; i++) yield generator.next(i);
    },
  };
}
