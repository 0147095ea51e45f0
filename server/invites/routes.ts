// The invites domain's routes; registered under /api by server/routes.ts. Managing invite links and the join code
// (./manage.ts, ./join-code.ts) and joining with them (./redeem.ts).
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { inviteManagementRoutes } from './manage';
import { joinCodeRoutes } from './join-code';
import { redeemRoutes } from './redeem';

export const inviteRoutes: FastifyPluginAsyncZod = async (app) => {
  // Scoped to this plugin and opted into per route: only the join endpoints are limited.
  await app.register(rateLimit, { global: false });
  app.addHook('onRequest', app.requireUser);

  await app.register(inviteManagementRoutes);
  await app.register(joinCodeRoutes);
  await app.register(redeemRoutes);
};
