// The handles of the authors Bluesky's stream stores (jetstream.ts): Jetstream carries only the repository's DID, so a
// new author is stored with the DID as handle, and resolved here afterwards — app.bsky.actor.getProfiles on the public
// AppView (SCRAPING_BLUESKY_URL), up to 25 actors a call, through the collectors' HTTP options and address guard
// (connectors/http.ts). What it answers is kept in the stored profile (handle, and the display name, counts, bio and
// avatar a profile made from the stream lacks), through the corpus's change path (corpus_update_profiles, so the
// analytics store follows): posts and people then show @handle, and the stream's later posts of the author take the
// stored handle (stream-store.ts).
//
// It never holds the stream up: the stream hands it the DIDs still unresolved after each commit and goes on. A call
// that fails (network, 5xx, rate limited) puts its DIDs back and pauses; a DID the AppView does not answer (a deleted
// account, a handle that fails verification: `handle.invalid`) is asked again later, waiting twice as long each time
// (up to `maxRetryMs`). At its start it also takes the stored profiles still known by DID alone (a restart resumes).
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import * as z from 'zod/mini';
import { httpGet, jsonBody, RateLimitedError, type HttpOptions } from '../connectors/http';

export interface HandleResolverOptions {
  pool: pg.Pool;
  /** The AppView: https://public.api.bsky.app. */
  url: string;
  http: HttpOptions;
  /** At most one call this often. */
  everyMs?: number;
  /** A DID unanswered is asked again after `retryMs`, then twice as long each time up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
  log?: (line: string) => void;
}

export interface HandleResolver {
  /** DIDs to resolve (those already waiting are not asked twice). */
  want(dids: readonly string[]): void;
  status(): { resolved: number; waiting: number; failedCalls: number };
  stop(): Promise<void>;
}

/** Actors a getProfiles call takes at most. */
const BATCH = 25;
/** DIDs remembered at most (queued or waiting to be asked again); more are dropped until their author posts again. */
const MAX_KNOWN = 50_000;
/** Stored profiles known by DID alone taken at the start. */
const BACKLOG = 5_000;

const handle = z.string().check(
  z.regex(/^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/),
  z.maxLength(253),
  z.refine((value) => value !== 'handle.invalid'),
);
const count = z.optional(z.number().check(z.int(), z.gte(0), z.lte(2_147_483_647)));
const profiles = z.looseObject({
  profiles: z.array(
    z.looseObject({
      did: z.string(),
      handle: z.unknown(),
      displayName: z.optional(z.string()),
      description: z.optional(z.string()),
      avatar: z.optional(z.string()),
      followersCount: count,
      followsCount: count,
    }),
  ),
});

interface Resolved {
  handle: string;
  name?: string;
  bio?: string;
  avatar?: string;
  followers?: number;
  following?: number;
}

/** Keeps what the AppView said of each profile still known by DID alone, in one change of the corpus. */
async function store(pool: pg.Pool, resolved: Map<string, Resolved>): Promise<void> {
  if (resolved.size === 0) return;
  const j = `%1$L::jsonb -> external_id`;
  await pool.query(
    `SELECT corpus_update_profiles(
       format('platform = ''bluesky'' AND handle = external_id AND external_id = ANY (%L::text[])', $1::text[]),
       format($q$handle = ${j} ->> 'handle',
         display_name = CASE WHEN display_name IN ('', external_id) THEN coalesce(nullif(${j} ->> 'name', ''),
           ${j} ->> 'handle') ELSE display_name END,
         followers = coalesce((${j} ->> 'followers')::int, followers),
         following = coalesce((${j} ->> 'following')::int, following),
         bio = CASE WHEN bio = '' THEN coalesce(left(${j} ->> 'bio', 2000), '') ELSE bio END,
         avatar_url = coalesce(avatar_url, ${j} ->> 'avatar')$q$, $2::text))`,
    [[...resolved.keys()], JSON.stringify(Object.fromEntries(resolved))],
  );
}

export function startHandleResolver(options: HandleResolverOptions): HandleResolver {
  const { pool, everyMs = 1_000, retryMs = 60_000, maxRetryMs = 3_600_000, log = console.log } = options;
  const queue = new Set<string>();
  /** DIDs unanswered: when to ask again, and how many times they were asked. */
  const later = new Map<string, { at: number; tries: number }>();
  const stats = { resolved: 0, failedCalls: 0 };
  const stopping = new AbortController();
  let pauseUntil = 0;

  const want = (dids: readonly string[]) => {
    for (const did of dids)
      if (!queue.has(did) && !later.has(did) && queue.size + later.size < MAX_KNOWN) queue.add(did);
  };

  const askLater = (did: string, tries: number) => {
    if (queue.size + later.size >= MAX_KNOWN) return;
    later.set(did, { at: Date.now() + Math.min(maxRetryMs, retryMs * 2 ** (tries - 1)), tries });
  };

  const ask = async (dids: string[], tries: Map<string, number>) => {
    const url = new URL('/xrpc/app.bsky.actor.getProfiles', options.url);
    for (const did of dids) url.searchParams.append('actors', did);
    const body = z.safeParse(
      profiles,
      jsonBody(await httpGet(url.toString(), { ...options.http, signal: stopping.signal })),
    );
    if (!body.success) throw new Error(`${url.host}: expected { profiles: [...] }`);
    const resolved = new Map<string, Resolved>();
    for (const profile of body.data.profiles) {
      const name = z.safeParse(handle, profile.handle);
      if (!dids.includes(profile.did) || !name.success) continue;
      resolved.set(profile.did, {
        handle: name.data.toLowerCase(),
        ...(profile.displayName && { name: profile.displayName }),
        ...(profile.description && { bio: profile.description }),
        ...(profile.avatar && { avatar: profile.avatar }),
        ...(profile.followersCount !== undefined && { followers: profile.followersCount }),
        ...(profile.followsCount !== undefined && { following: profile.followsCount }),
      });
    }
    await store(pool, resolved);
    stats.resolved += resolved.size;
    for (const did of dids) if (!resolved.has(did)) askLater(did, (tries.get(did) ?? 0) + 1);
  };

  const round = async () => {
    const now = Date.now();
    if (now < pauseUntil) return;
    const tries = new Map<string, number>();
    for (const [did, at] of later)
      if (at.at <= now && queue.size < BATCH) {
        later.delete(did);
        queue.add(did);
        tries.set(did, at.tries);
      }
    const dids = [...queue].slice(0, BATCH);
    if (dids.length === 0) return;
    for (const did of dids) queue.delete(did);
    try {
      await ask(dids, tries);
    } catch (error) {
      if (stopping.signal.aborted) return;
      stats.failedCalls += 1;
      const wait = error instanceof RateLimitedError ? error.waitMs : Math.min(maxRetryMs, retryMs);
      pauseUntil = Date.now() + wait;
      for (const did of dids) askLater(did, (tries.get(did) ?? 0) + 1);
      log(
        `Bluesky handles: ${dids.length} could not be resolved (${(error as Error).message.slice(0, 300)}); ` +
          `asking again in ${Math.round(wait / 1_000)} s.`,
      );
    }
  };

  const running = (async () => {
    try {
      const { rows } = await pool.query<{ external_id: string }>(
        `SELECT external_id FROM profiles WHERE platform = 'bluesky' AND handle = external_id LIMIT ${BACKLOG}`,
      );
      want(rows.map((row) => row.external_id));
    } catch (error) {
      log(
        `Bluesky handles: the profiles known by DID alone could not be read (${(error as Error).message}).`,
      );
    }
    while (!stopping.signal.aborted) {
      await round();
      await sleep(everyMs, undefined, { signal: stopping.signal }).catch(() => {});
    }
  })();

  return {
    want,
    status: () => ({ ...stats, waiting: queue.size + later.size }),
    async stop() {
      stopping.abort();
      await running;
    },
  };
}
