// Per-account rate limits of the social API (@fastify/rate-limit, registered with global: false by each plugin):
// searches and dashboards cost the database up to a few hundred milliseconds each, so one account cannot take the
// cores from everyone else, whichever IP addresses it comes from. The key is the signed-in user (the plugin's
// requireUser hook has run before a route's own hooks).
import { ApiError } from '@server/errors';

export const perAccountLimit = (bucket: string, max: number) => ({
  rateLimit: {
    max,
    timeWindow: '1 minute',
    keyGenerator: (request: { userId: string }) => `${bucket}|${request.userId}`,
    errorResponseBuilder: (_request: unknown, context: { statusCode: number; after: string }) =>
      new ApiError(context.statusCode, 'rate_limited', `Too many requests. Try again in ${context.after}.`),
  },
});
