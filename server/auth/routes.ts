// The auth domain's routes (spec §7: auth/login, auth/refresh; plus auth/nonce and auth/logout); registered under
// /api by server/routes.ts. Tokens travel only in bodies and the Authorization header, never in URLs or logs.
import rateLimit from '@fastify/rate-limit';
import * as z from 'zod/mini';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { loginRequestSchema, nonceResponseSchema, tokenPairSchema } from '@contract/auth';
import { errorResponseSchema } from '@contract/errors';
import { ApiError } from '@server/errors';
import { bearerToken } from './authenticate';
import { createIdTokenVerifier, type VerifiedIdentity } from './id-token';
import { issueNonce } from './nonces';
import { isWellFormed, revokeFamilyOf, rotate } from './refresh-tokens';
import { signIn } from './sign-in';

const tags = ['auth'];
const MINUTE_MS = 60_000;

const invalidRefreshToken = () => new ApiError(401, 'invalid_refresh_token', 'Sign in again.');

export const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.deps;
  const verifier = createIdTokenVerifier(config);
  const staffEmails = config.STAFF_EMAILS.split(',')
    .map((email) => email.trim())
    .filter(Boolean);

  // Scoped to this plugin: only the routes below that ask for a limit get one.
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      new ApiError(context.statusCode, 'rate_limited', `Too many requests. Try again in ${context.after}.`),
  });
  const signInLimit = { rateLimit: { max: config.LOGIN_RATE_LIMIT_PER_MINUTE, timeWindow: MINUTE_MS } };
  const refreshLimit = { rateLimit: { max: config.REFRESH_RATE_LIMIT_PER_MINUTE, timeWindow: MINUTE_MS } };

  app.post(
    '/auth/nonce',
    {
      config: signInLimit,
      schema: {
        tags,
        summary: 'Start a sign-in',
        description:
          'A single-use nonce to pass to the vendor; the ID token posted to auth/login must carry it as its nonce claim.',
        response: { 200: nonceResponseSchema, 429: errorResponseSchema },
      },
    },
    async () => ({ nonce: await issueNonce(db, config.LOGIN_NONCE_TTL_SECONDS) }),
  );

  app.post(
    '/auth/login',
    {
      config: signInLimit,
      schema: {
        tags,
        summary: 'Sign in with a Google or Microsoft ID token',
        description:
          'Verifies oauth_token (an ID token carrying a nonce from auth/nonce) and starts a session. A first sign-in creates the user.',
        body: loginRequestSchema,
        response: {
          200: tokenPairSchema,
          400: errorResponseSchema,
          401: errorResponseSchema,
          429: errorResponseSchema,
          503: errorResponseSchema,
        },
      },
    },
    async (request, reply) => {
      const { oauth_token: token, vendor_type: vendor } = request.body;
      let identity: VerifiedIdentity;
      try {
        identity = await verifier.verify(vendor, token, request.log);
      } catch (error) {
        // The app's error handler turns every 5xx into a bare 500; a missing vendor should say so.
        if (error instanceof ApiError && error.statusCode === 503) {
          return reply.code(503).send({ error: error.code, message: error.message });
        }
        throw error;
      }
      const { userId, signInId, refreshToken } = await signIn(db, identity, {
        staffEmails,
        refreshLifetimeDays: config.REFRESH_TOKEN_LIFETIME_DAYS,
      });
      return { access_token: await app.accessTokens.sign(userId, signInId), refresh_token: refreshToken };
    },
  );

  app.post(
    '/auth/refresh',
    {
      config: refreshLimit,
      schema: {
        tags,
        summary: 'Exchange a refresh token for a new token pair',
        description:
          'The Authorization header carries the refresh token (not an access token); no body. The refresh token rotates: ' +
          'the old one stops working, and presenting it again ends the whole sign-in, its access tokens included.',
        security: [{ bearer: [] }],
        response: { 200: tokenPairSchema, 401: errorResponseSchema, 429: errorResponseSchema },
      },
    },
    async (request) => {
      const token = bearerToken(request);
      if (!isWellFormed(token)) throw invalidRefreshToken();
      const result = await rotate(db, token, {
        graceSeconds: config.REFRESH_REUSE_GRACE_SECONDS,
        secret: app.keys.refreshSuccessors,
      });
      if (result.outcome === 'reused') {
        app.signIns.ended(result.signInId);
        request.log.warn('a rotated refresh token was presented again; its sign-in is revoked');
      }
      if (result.outcome !== 'rotated') throw invalidRefreshToken();
      return {
        access_token: await app.accessTokens.sign(result.userId, result.signInId),
        refresh_token: result.refreshToken,
      };
    },
  );

  app.post(
    '/auth/logout',
    {
      config: refreshLimit,
      schema: {
        tags,
        summary: 'End the sign-in a refresh token belongs to',
        description:
          'The Authorization header carries the refresh token. Always 204, whether or not the token was known. The ' +
          "sign-in's access tokens stop working at once.",
        security: [{ bearer: [] }],
        response: { 204: z.null(), 429: errorResponseSchema },
      },
    },
    async (request, reply) => {
      const token = bearerToken(request);
      const ended = isWellFormed(token) ? await revokeFamilyOf(db, token) : null;
      if (ended) app.signIns.ended(ended);
      return reply.code(204).send(null);
    },
  );
};
