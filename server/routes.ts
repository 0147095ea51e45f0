// One plugin per domain, registered in one place under the internal API's prefix.
import type { FastifyInstance } from 'fastify';
import { authRoutes } from './auth/routes';
import { healthRoutes } from './health/routes';
import { userRoutes } from './users/routes';
import { workspaceRoutes } from './workspaces/routes';
import { inviteRoutes } from './invites/routes';
import { savedQueryRoutes } from './saved-queries/routes';
import { trackingRoutes } from './tracking/routes';
import { listRoutes } from './lists/routes';
import { postTagRoutes } from './tags/post-routes';
import { tagRoutes } from './tags/routes';
import { applyPastFromStore } from './social/insights/rule-past';
import { inBackground, prepareQuery, prepareSavedQueries } from './social/insights/prepared-sets';
import { alertRoutes } from './alerts/routes';
import { notificationRoutes } from './alerts/notification-routes';
import { digestRoutes } from './digests/routes';
import { sentimentCorrectionRoutes } from './social/corrections-routes';
import { shareLinkRoutes } from './sharing/routes';
import { sharedViewRoutes } from './sharing/shared-routes';
import { reportRoutes } from './sharing/report-routes';
import { scrapingRoutes } from './scraping/routes';
import { billingRoutes } from './billing/routes';
import { queryRoutes } from '@server/social/editor/routes';
import { discoverRoutes } from './social/discover/routes';
import { insightRoutes } from './social/insights/routes';
import { tagListRoutes } from './social/insights/tag-list-routes';
import { detailRoutes } from './social/detail/routes';

export async function registerApiRoutes(app: FastifyInstance) {
  await app.register(
    async (api) => {
      await api.register(healthRoutes);
      await api.register(authRoutes);
      await api.register(userRoutes);
      await api.register(workspaceRoutes);
      await api.register(inviteRoutes);
      // A long saved query's matches found before its first dashboard (prepared-sets.ts).
      const warn = (line: string) => app.log.warn(line);
      await api.register(savedQueryRoutes, {
        saved: (workspaceId, text) =>
          inBackground(prepareQuery(app.deps.db, app.deps.analytics, workspaceId, text), warn),
      });
      await api.register(trackingRoutes);
      await api.register(listRoutes, {
        edited: (workspaceId, list) =>
          inBackground(prepareSavedQueries(app.deps.db, app.deps.analytics, { workspaceId, list }), warn),
      });
      await api.register(tagRoutes, { pastFromStore: applyPastFromStore });
      await api.register(postTagRoutes);
      await api.register(alertRoutes);
      await api.register(notificationRoutes);
      await api.register(digestRoutes);
      await api.register(sentimentCorrectionRoutes);
      await api.register(shareLinkRoutes);
      await api.register(scrapingRoutes);
      await api.register(billingRoutes);
    },
    { prefix: '/api' },
  );
  // The social API: its own base URL in the SPA's config (VITE_SOCIAL_API_BASE_URL), so it can be deployed apart.
  await app.register(
    async (social) => {
      await social.register(queryRoutes);
      await social.register(discoverRoutes);
      await social.register(insightRoutes);
      await social.register(tagListRoutes);
      await social.register(detailRoutes);
      await social.register(sharedViewRoutes);
      await social.register(reportRoutes);
    },
    { prefix: '/social' },
  );
}
