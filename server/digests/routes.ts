// Scheduled digests of a workspace (internal API, under /api; send.ts): every member lists them; owners and managers
// make and delete them (checked here on the server), not on a trial, within the workspace's daily cap of e-mails.
// Outside addresses confirm through the link of their first e-mail (confirm.ts), posted here without a session.
import { and, desc, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import rateLimit from '@fastify/rate-limit';
import * as z from 'zod/mini';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  confirmDigestBodySchema,
  confirmDigestResponseSchema,
  createDigestBodySchema,
  DIGEST_DAILY_CAP,
  digestListSchema,
  digestParamsSchema,
  digestSchema,
  DIGEST_FREQUENCIES,
  DIGESTS_LIMIT,
  type Digest,
} from '@contract/digests';
import { errorResponseSchema } from '@contract/errors';
import { workspaceParamsSchema } from '@contract/workspaces';
import { digestConfirmations, digests, digestSends } from '@server/db/alerts-schema';
import { memberships, users, workspaces } from '@server/db/schema';
import { savedQueries } from '@server/db/social-schema';
import { ApiError } from '@server/errors';
import { bearer, errorResponses } from '@server/openapi';
import { atLeast } from '@server/workspaces/permissions';
import {
  lockWorkspaceAccess,
  workspaceAccessOf,
  type WorkspaceRequirement,
} from '@server/workspaces/route-access';
import { confirmedAddresses, DIGESTS_NOT_ON_TRIAL, hashConfirmToken, sendConfirmations } from './confirm';
import { readDigestUnsubscribeToken } from './unsubscribe';

const tags = ['alerts'];
const anyMember: WorkspaceRequirement = { from: 'params', minimum: 'viewer' };
const editors: WorkspaceRequirement = {
  from: 'params',
  minimum: 'manager',
  denied: () => new ApiError(403, 'forbidden', 'Only owners and managers can schedule digests.'),
};
const invalid = (message: string) => new ApiError(400, 'invalid_digest', message);

export const digestRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.deps;

  /** The workspace's members' e-mails, lower case: such an address needs no confirmation. */
  const memberEmails = async (workspaceId: string) =>
    new Set(
      (
        await db
          .select({ email: users.email })
          .from(memberships)
          .innerJoin(users, eq(users.id, memberships.userId))
          .where(eq(memberships.workspaceId, workspaceId))
      ).map((m) => m.email.toLowerCase()),
    );

  const listed = async (workspaceId: string, digestId?: string): Promise<Digest[]> => {
    const confirmed = await confirmedAddresses(db, workspaceId);
    const members = await memberEmails(workspaceId);
    const rows = await db
      .select({
        digest: digests,
        name: savedQueries.name,
        last: sql<string | null>`(SELECT max(s.period_start)::text FROM ${digestSends} s
          WHERE s.digest_id = ${digests.id} AND s.sent_at IS NOT NULL)`,
      })
      .from(digests)
      .innerJoin(savedQueries, eq(savedQueries.id, digests.savedQueryId))
      .where(and(eq(digests.workspaceId, workspaceId), digestId ? eq(digests.id, digestId) : undefined))
      .orderBy(desc(digests.createdAt), desc(digests.id));
    return rows.map(({ digest, name, last }) => ({
      id: digest.id,
      saved_query_id: digest.savedQueryId,
      saved_query_name: name,
      frequency: digest.frequency,
      recipient_ids: digest.recipientIds,
      addresses: digest.addresses,
      unconfirmed_addresses: digest.addresses.filter((a) => !confirmed.has(a) && !members.has(a)),
      created_at: digest.createdAt.toISOString(),
      last_sent_period: last === null ? null : new Date(last).toISOString(),
    }));
  };

  // The unsubscribe link works signed out: its token is the whole authority (one recipient off one digest).
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      new ApiError(context.statusCode, 'rate_limited', `Too many requests. Try again in ${context.after}.`),
  });
  app.post(
    '/digests/unsubscribe',
    {
      schema: {
        tags,
        summary: "Take the recipient a digest e-mail's unsubscribe link names off that digest",
        description:
          'The token comes from the link in the e-mail (its fragment). 400 invalid_token for a token this server ' +
          'did not sign; 404 when the digest is gone.',
        body: z.object({ token: z.string().check(z.minLength(1), z.maxLength(1_000)) }),
        response: {
          200: z.object({
            saved_query_name: z.string(),
            workspace_name: z.string(),
            frequency: z.enum(DIGEST_FREQUENCIES),
          }),
          400: errorResponseSchema,
          404: errorResponseSchema,
          429: errorResponseSchema,
        },
      },
      config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
    },
    async (request) => {
      const named = readDigestUnsubscribeToken(app.keys.digestUnsubscribe, request.body.token);
      if (!named) throw new ApiError(400, 'invalid_token', 'This unsubscribe link is not valid.');
      const { recipient } = named;
      // An address that never confirmed refuses every digest of the workspace (its confirmation e-mail's link).
      if ('address' in recipient) {
        const [pending] = await db
          .select({ workspaceId: digests.workspaceId })
          .from(digests)
          .innerJoin(
            digestConfirmations,
            and(
              eq(digestConfirmations.workspaceId, digests.workspaceId),
              eq(digestConfirmations.address, recipient.address),
              isNull(digestConfirmations.confirmedAt),
            ),
          )
          .where(eq(digests.id, named.digestId));
        if (pending) {
          await db
            .update(digests)
            .set({ addresses: sql`array_remove(${digests.addresses}, ${recipient.address})` })
            .where(and(eq(digests.workspaceId, pending.workspaceId), ne(digests.id, named.digestId)));
        }
      }
      const [updated] = await db
        .update(digests)
        .set(
          'userId' in recipient
            ? { recipientIds: sql`array_remove(${digests.recipientIds}, ${recipient.userId}::uuid)` }
            : { addresses: sql`array_remove(${digests.addresses}, ${recipient.address})` },
        )
        .where(eq(digests.id, named.digestId))
        .returning({
          savedQueryId: digests.savedQueryId,
          workspaceId: digests.workspaceId,
          frequency: digests.frequency,
        });
      if (!updated) throw new ApiError(404, 'not_found', 'This digest no longer exists.');
      const [names] = await db
        .select({ query: savedQueries.name, workspace: workspaces.name })
        .from(savedQueries)
        .innerJoin(workspaces, eq(workspaces.id, savedQueries.workspaceId))
        .where(eq(savedQueries.id, updated.savedQueryId));
      return {
        saved_query_name: names?.query ?? 'a saved query',
        workspace_name: names?.workspace ?? 'a workspace',
        frequency: updated.frequency,
      };
    },
  );

  // The confirmation link of an outside address: its token (single-use, random, kept hashed) is the whole authority.
  app.post(
    '/digests/confirm',
    {
      schema: {
        tags,
        summary: "Confirm that an outside address wants a workspace's digests (the link of its first e-mail)",
        description:
          'Until an address that is not a member confirms, it gets nothing but that e-mail. The token comes from the ' +
          "link's fragment; confirming again with the same link changes nothing (already_confirmed). 400 " +
          'invalid_token for a token this server did not send; 30 a minute per address (429).',
        body: confirmDigestBodySchema,
        response: { 200: confirmDigestResponseSchema, 400: errorResponseSchema, 429: errorResponseSchema },
      },
      config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
    },
    async (request) => {
      const tokenHash = hashConfirmToken(request.body.token);
      const [row] = await db
        .select({ confirmation: digestConfirmations, workspaceName: workspaces.name })
        .from(digestConfirmations)
        .innerJoin(workspaces, eq(workspaces.id, digestConfirmations.workspaceId))
        .where(eq(digestConfirmations.tokenHash, tokenHash));
      if (!row) throw new ApiError(400, 'invalid_token', 'This confirmation link is not valid.');
      const already = row.confirmation.confirmedAt !== null;
      if (!already) {
        await db
          .update(digestConfirmations)
          .set({ confirmedAt: sql`now()` })
          .where(and(eq(digestConfirmations.tokenHash, tokenHash), isNull(digestConfirmations.confirmedAt)));
      }
      return {
        address: row.confirmation.address,
        workspace_name: row.workspaceName,
        already_confirmed: already,
      };
    },
  );

  const signedInRoutes: FastifyPluginAsyncZod = async (signedIn) => {
    signedIn.addHook('onRequest', app.requireUser);

    signedIn.get(
      '/workspaces/:id/digests',
      {
        config: { workspace: anyMember },
        schema: {
          tags,
          security: bearer,
          summary: "The workspace's scheduled digests, newest first",
          params: workspaceParamsSchema,
          response: { 200: digestListSchema, ...errorResponses(404) },
        },
      },
      async (request) => {
        const { workspace, privilege } = workspaceAccessOf(request);
        return {
          digests: await listed(workspace.id),
          can_edit: atLeast(privilege, 'manager'),
          limit: DIGESTS_LIMIT,
          daily_cap: DIGEST_DAILY_CAP,
          unavailable: workspace.plan === 'trial' ? DIGESTS_NOT_ON_TRIAL : null,
        };
      },
    );

    signedIn.post(
      '/workspaces/:id/digests',
      {
        config: { workspace: editors },
        schema: {
          tags,
          security: bearer,
          summary: 'Schedule a digest of a saved query (owners and managers)',
          description:
            "Daily or weekly in the workspace's time zone, to members (recipient_ids) and other addresses; someone " +
            'must receive it (400 invalid_digest). The first one is sent when the current day or week ends. ' +
            "An address that is not a member's gets a confirmation e-mail first and nothing else until it " +
            `confirms (unconfirmed_addresses). At most ${DIGESTS_LIMIT} a workspace (409 digest_limit), whose ` +
            `recipients together stay within ${DIGEST_DAILY_CAP} e-mails a day (409 digest_daily_cap). Not on a ` +
            'trial (403 digests_need_plan).',
          params: workspaceParamsSchema,
          body: createDigestBodySchema,
          response: { 201: digestSchema, ...errorResponses(400, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const recipients = [...new Set(body.recipient_ids)];
        const addresses = [...new Set(body.addresses.map((a) => a.toLowerCase()))];
        if (!recipients.length && !addresses.length) throw invalid('Choose who receives the digest.');
        const id = await db.transaction(async (tx) => {
          const access = await lockWorkspaceAccess(tx, config, request);
          const workspaceId = access.workspace.id;
          if (access.workspace.plan === 'trial')
            throw new ApiError(403, 'digests_need_plan', DIGESTS_NOT_ON_TRIAL);
          const [saved] = await tx
            .select({ id: savedQueries.id })
            .from(savedQueries)
            .where(and(eq(savedQueries.id, body.saved_query_id), eq(savedQueries.workspaceId, workspaceId)));
          if (!saved) throw new ApiError(404, 'not_found', 'There is no such saved query in this workspace.');
          if (recipients.length) {
            const members = await tx
              .select({ userId: memberships.userId })
              .from(memberships)
              .where(and(eq(memberships.workspaceId, workspaceId), inArray(memberships.userId, recipients)));
            if (members.length !== recipients.length) throw invalid('Every recipient must be a member.');
          }
          const [{ n }] = (await tx
            .select({ n: sql<number>`count(*)::int` })
            .from(digests)
            .where(eq(digests.workspaceId, workspaceId))) as [{ n: number }];
          if (n >= DIGESTS_LIMIT) {
            throw new ApiError(409, 'digest_limit', `A workspace can have at most ${DIGESTS_LIMIT} digests.`);
          }
          // Each digest sends at most once a day to each of its recipients: together within the daily cap.
          const [{ perDay }] = (await tx
            .select({
              perDay: sql<number>`coalesce(sum(cardinality(${digests.recipientIds}) + cardinality(${digests.addresses})), 0)::int`,
            })
            .from(digests)
            .where(eq(digests.workspaceId, workspaceId))) as [{ perDay: number }];
          const adding = recipients.length + addresses.length;
          if (perDay + adding > DIGEST_DAILY_CAP) {
            throw new ApiError(
              409,
              'digest_daily_cap',
              `A workspace's digests can send at most ${DIGEST_DAILY_CAP} e-mails a day. Its digests already ` +
                `have ${perDay} recipients; this one would add ${adding}. Remove recipients or stop a digest.`,
            );
          }
          const [created] = await tx
            .insert(digests)
            .values({
              workspaceId,
              savedQueryId: body.saved_query_id,
              frequency: body.frequency,
              recipientIds: recipients,
              addresses,
              createdBy: request.userId,
            })
            .returning({ id: digests.id });
          // Outside addresses wait for their confirmation (once per workspace).
          const members = (
            await tx
              .select({ email: users.email })
              .from(memberships)
              .innerJoin(users, eq(users.id, memberships.userId))
              .where(eq(memberships.workspaceId, workspaceId))
          ).map((m) => m.email.toLowerCase());
          const outside = addresses.filter((a) => !members.includes(a));
          if (outside.length) {
            await tx
              .insert(digestConfirmations)
              .values(outside.map((address) => ({ workspaceId, address, digestId: created!.id })))
              .onConflictDoNothing();
          }
          return created!.id;
        });
        // The confirmations at once (the digests' round sends those this misses).
        await sendConfirmations(
          {
            db,
            mailer: app.deps.mailer,
            appUrl: config.APP_URL,
            unsubscribeKey: app.keys.digestUnsubscribe,
          },
          workspaceAccessOf(request).workspace.id,
        ).catch((error: unknown) => request.log.warn({ err: error }, 'digest confirmations not sent'));
        const { workspace } = workspaceAccessOf(request);
        const [made] = await listed(workspace.id, id);
        return reply.status(201).send(made!);
      },
    );

    signedIn.delete(
      '/workspaces/:id/digests/:digestId',
      {
        config: { workspace: editors },
        schema: {
          tags,
          security: bearer,
          summary: 'Stop a scheduled digest (owners and managers)',
          params: digestParamsSchema,
          response: { 204: z.null(), ...errorResponses(403, 404) },
        },
      },
      async (request, reply) => {
        const { workspace } = workspaceAccessOf(request);
        const gone = await db
          .delete(digests)
          .where(and(eq(digests.workspaceId, workspace.id), eq(digests.id, request.params.digestId)))
          .returning({ id: digests.id });
        if (!gone.length) throw new ApiError(404, 'not_found', 'There is no such digest in this workspace.');
        return reply.status(204).send(null);
      },
    );
  };
  await app.register(signedInRoutes);
};
