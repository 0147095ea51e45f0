// What the tracking poll's tests share (test/server/saved-queries/tracking-poll*.test.ts): the poll's dependencies on
// the scraping harness (every source's URL at its replay server), a saved query tracked as a manager tracks it, its
// coverage of a source as a viewer reads it, a platform's stored posts, and a source made due again (its cadence
// passed) without waiting for it.
import { expect } from 'vitest';
import type { TrackingResponse } from '@contract/tracking';
import type { PollDeps } from '@server/tracking/poll-sources';
import type { ScrapingHarness } from './scraping-runs';
import { as, type Team } from './workspaces.fixtures';

export function trackingSteps(h: ScrapingHarness) {
  const deps: PollDeps = {
    pool: h.pool,
    db: h.server.db,
    catalogue: h.server.app.billing.catalogue,
    http: h.deps.http,
    urls: h.deps.urls,
    secretsKey: h.deps.secretsKey,
  };
  return {
    deps,
    /** A new saved query with `query`, tracked on `sources`; its id. */
    async track(team: Team, query: string, sources: string[]) {
      const created = await as(h.server, team.owner, {
        method: 'POST',
        url: `/api/workspaces/${team.workspaceId}/saved-queries`,
        payload: { name: `Q ${Math.random()}`, query },
      });
      const id = created.json<{ id: string }>().id;
      const put = await as(h.server, team.manager, {
        method: 'PUT',
        url: `/api/workspaces/${team.workspaceId}/saved-queries/${id}/tracking`,
        payload: { enabled: true, sources },
      });
      expect(put.statusCode, put.body).toBe(200);
      return id;
    },
    async coverage(team: Team, id: string, source: string) {
      const res = await as(h.server, team.viewer, {
        method: 'GET',
        url: `/api/workspaces/${team.workspaceId}/saved-queries/${id}/tracking`,
      });
      return res.json<TrackingResponse>().coverage.find((c) => c.source === source)!;
    },
    /** The platform's posts: external id and text, by external id. */
    stored: async (platform: string) =>
      (
        await h.pool.query<{ external_id: string; text: string }>(
          'SELECT external_id, text FROM posts WHERE platform = $1 ORDER BY external_id',
          [platform],
        )
      ).rows,
    /** The source's searches last asked two hours ago: due at the next round whatever the source's cadence. */
    due: (source: string) =>
      h.pool.query(
        `UPDATE tracking_coverage SET cursors = (
           SELECT jsonb_object_agg(search, state || jsonb_build_object('at', now() - interval '2 hours'))
           FROM jsonb_each(cursors) AS e (search, state))
         WHERE source = $1 AND cursors <> '{}'::jsonb`,
        [source],
      ),
  };
}
