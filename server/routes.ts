// One plugin per domain, registered in one place under the internal API's prefix.
import type { FastifyInstance } from 'fastify';
import { authRoutes } from './auth/routes';
import { userRoutes } from './users/routes';
import { workspaceRoutes } from './workspaces/routes';
import { inviteRoutes } from './invites/routes';

export async function registerApiRoutes(app: FastifyInstance) {
  await app.register(
    async (api) => {
      await api.register(authRoutes);
      await api.register(userRoutes);
      await api.register(workspaceRoutes);
      await api.register(inviteRoutes);
    },
    { prefix: '/api' },
  );
}
