// A local Bluesky AppView answering app.bsky.actor.getProfiles (GET /xrpc/app.bsky.actor.getProfiles?actors=…&actors=…)
// for the handle resolution of the stream's authors (server/scraping/streams/bluesky-handles.ts), on the replay server
// (replay-server.ts): profiles it knows are answered, unknown actors left out (as the AppView does for a deleted
// account), more than 25 actors refused with 400 (the lexicon's maximum), and the next calls can be made to fail.
import { startReplayServer, type ReplayServer } from './replay-server';

export interface AppViewProfile {
  handle: string;
  displayName?: string;
  followersCount?: number;
}

export interface AppViewStandIn {
  url: string;
  /** The actors of each getProfiles call, in order. */
  readonly calls: string[][];
  /** Profiles it knows, by DID (add to it between calls). */
  profiles: Map<string, AppViewProfile>;
  /** The next `count` calls answer `status` (503: down for a while). */
  failNext(count: number, status: number): void;
  close(): Promise<void>;
}

export async function startAppViewStandIn(
  known: Record<string, AppViewProfile> = {},
): Promise<AppViewStandIn> {
  const profiles = new Map(Object.entries(known));
  const calls: string[][] = [];
  let failing = { count: 0, status: 503 };
  const server: ReplayServer = await startReplayServer({
    '/xrpc/app.bsky.actor.getProfiles': (url) => {
      const actors = url.searchParams.getAll('actors');
      calls.push(actors);
      if (failing.count > 0) {
        failing.count -= 1;
        return { status: failing.status, body: '{"error":"InternalServerError"}' };
      }
      if (actors.length === 0 || actors.length > 25)
        return { status: 400, body: '{"error":"InvalidRequest","message":"actors: 1 to 25"}' };
      return {
        body: JSON.stringify({
          profiles: actors.flatMap((did) => {
            const profile = profiles.get(did);
            return profile ? [{ did, labels: [], ...profile }] : [];
          }),
        }),
      };
    },
  });
  return {
    url: server.url,
    calls,
    profiles,
    failNext(count, status) {
      failing = { count, status };
    },
    close: () => server.close(),
  };
}
