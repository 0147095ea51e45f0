// Share links of a workspace (internal API, under /api; docs/sharing.md): owners and managers make, list and revoke
// them (checked here on the server). The token is returned once, when the link is made; only its hash is stored.
import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  createdShareLinkSchema,
  createShareLinkBodySchema,
  shareLinkListSchema,
  shareLinkParamsSchema,
  shareLinkSchema,
  SHARE_LINKS_LIMIT,
} from '@contract/share-links';
import { workspaceParamsSchema } from '@contract/workspaces';
import { savedQueries, shareLinks } from '@server/db/social-schema';
import { users } from '@server/db/schema';
import { ApiError } from '@server/errors';
import { personName } from '@server/users/person-name';
import { bearer, errorResponses } from '@server/openapi';
import {
  lockWorkspaceAccess,
  workspaceAccessOf,
  type WorkspaceRequirement,
} from '@server/workspaces/route-access';
import { checkSharedView, hashShareToken, newShareToken, toShareLink } from './links';

const tags = ['sharing'];
const editors: WorkspaceRequirement = {
  from: 'params',
  minimum: 'manager',
  denied: () =>
    new ApiError(403, 'forbidden', 'Only owners and managers can share views and see share links.'),
};
const DAY_MS = 86_400_000;

export const shareLinkRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.deps;

  const listed = (workspaceId: string, linkId?: string) =>
    db
      .select({
        row: shareLinks,
        createdBy: personName,
        // The saved query's name; Compare's saved queries' names in order, joined (those deleted left out).
        savedQueryName: sql<string | null>`coalesce(${savedQueries.name}, (
          SELECT string_agg(q.name, ' vs ' ORDER BY o.n)
          FROM jsonb_array_elements_text(${shareLinks.view} -> 'saved_query_ids') WITH ORDINALITY AS o(id, n)
          JOIN saved_queries q ON q.id::text = o.id AND q.workspace_id = ${shareLinks.workspaceId}))`,
        // Compare's tags ("Category › Tag") in order, joined (those deleted left out).
        tagNames: sql<string | null>`(
          SELECT string_agg(c.name || ' › ' || t.name, ' vs ' ORDER BY o.n)
          FROM jsonb_array_elements_text(${shareLinks.view} -> 'tag_ids') WITH ORDINALITY AS o(id, n)
          JOIN tags t ON t.id::text = o.id AND t.workspace_id = ${shareLinks.workspaceId}
          JOIN tag_categories c ON c.id = t.category_id)`,
      })
      .from(shareLinks)
      .leftJoin(users, eq(users.id, shareLinks.createdBy))
      .leftJoin(savedQueries, sql`${savedQueries.id}::text = ${shareLinks.view} ->> 'saved_query_id'`)
      .where(
        and(
          eq(shareLinks.workspaceId, workspaceId),
          eq(shareLinks.purpose, 'link'),
          linkId ? eq(shareLinks.id, linkId) : undefined,
        ),
      )
      .orderBy(desc(shareLinks.createdAt), desc(shareLinks.id));

  const signedInRoutes: FastifyPluginAsyncZod = async (signedIn) => {
    signedIn.addHook('onRequest', app.requireUser);

    signedIn.get(
      '/workspaces/:id/share-links',
      {
        config: { workspace: editors },
        schema: {
          tags,
          security: bearer,
          summary: "The workspace's share links, newest first (owners and managers)",
          description:
            'Each with its name (null for none), who made it and when, when it expires, when it was last opened ' +
            'and how often.',
          params: workspaceParamsSchema,
          response: { 200: shareLinkListSchema, ...errorResponses(403, 404) },
        },
      },
      async (request) => {
        const { workspace } = workspaceAccessOf(request);
        const rows = await listed(workspace.id);
        return {
          links: rows.map((r) =>
            toShareLink(r.row, {
              createdBy: r.createdBy,
              savedQueryName: r.savedQueryName,
              tagNames: r.tagNames,
            }),
          ),
          limit: SHARE_LINKS_LIMIT,
        };
      },
    );

    signedIn.post(
      '/workspaces/:id/share-links',
      {
        config: { workspace: editors },
        schema: {
          tags,
          security: bearer,
          summary: 'Share one dashboard view, or a Compare view, read-only (owners and managers)',
          description:
            'Body: an optional name (1 to 80 characters once trimmed, shown in the list to tell links to the same view ' +
            "apart), the dashboard ('compare' for Compare), the view (the dashboard's request without workspace_id and " +
            "cursor — Compare's: saved_query_ids, or saved_query_id and tag_ids, then filters, refine —; its range, " +
            'filters.from and filters.to, is required), rolling (the range keeps its length and ends when the link ' +
            `is opened) and expires_in_days (1 to 365, default 30). The answer's token is shown once: the link is ` +
            '/shared#<token>. 400 for a view the dashboard would refuse (a query that does not parse, a bad ' +
            'refinement); 404 for a saved query not in the workspace; 409 share_link_limit past ' +
            `${SHARE_LINKS_LIMIT} active links.`,
          params: workspaceParamsSchema,
          body: createShareLinkBodySchema,
          response: { 201: createdShareLinkSchema, ...errorResponses(400, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        const { name, dashboard, view, rolling, expires_in_days: days } = request.body;
        const { workspace } = workspaceAccessOf(request);
        const checked = await checkSharedView(db, workspace, dashboard, view);
        const token = newShareToken();
        const row = await db.transaction(async (tx) => {
          // The workspace row stays locked until commit: concurrent creates count one after another.
          const access = await lockWorkspaceAccess(tx, config, request);
          const [{ n }] = (await tx
            .select({ n: sql<number>`count(*)::int` })
            .from(shareLinks)
            .where(
              and(
                eq(shareLinks.workspaceId, access.workspace.id),
                eq(shareLinks.purpose, 'link'),
                isNull(shareLinks.revokedAt),
                gt(shareLinks.expiresAt, sql`now()`),
              ),
            )) as [{ n: number }];
          if (n >= SHARE_LINKS_LIMIT) {
            throw new ApiError(
              409,
              'share_link_limit',
              `A workspace can have at most ${SHARE_LINKS_LIMIT} active share links; revoke some in Settings › Share links.`,
            );
          }
          const [created] = await tx
            .insert(shareLinks)
            .values({
              workspaceId: access.workspace.id,
              tokenHash: hashShareToken(token),
              name: name ?? null,
              dashboard,
              view,
              rolling,
              createdBy: request.userId,
              expiresAt: new Date(Date.now() + days * DAY_MS),
            })
            .returning();
          return created!;
        });
        const [me] = await db.select({ name: personName }).from(users).where(eq(users.id, request.userId!));
        return reply.status(201).send({
          link: toShareLink(row, { createdBy: me?.name ?? null, savedQueryName: null, title: checked.title }),
          token,
        });
      },
    );

    signedIn.delete(
      '/workspaces/:id/share-links/:linkId',
      {
        config: { workspace: editors },
        schema: {
          tags,
          security: bearer,
          summary: 'Revoke a share link (owners and managers)',
          description: 'The link shows nothing from then on (410 share_link_revoked to whoever opens it).',
          params: shareLinkParamsSchema,
          response: { 200: shareLinkSchema, ...errorResponses(403, 404) },
        },
      },
      async (request) => {
        const { workspace } = workspaceAccessOf(request);
        const { linkId } = request.params;
        await db
          .update(shareLinks)
          .set({ revokedAt: sql`coalesce(${shareLinks.revokedAt}, now())` })
          .where(
            and(
              eq(shareLinks.workspaceId, workspace.id),
              eq(shareLinks.id, linkId),
              eq(shareLinks.purpose, 'link'),
            ),
          );
        const [found] = await listed(workspace.id, linkId);
        if (!found)
          throw new ApiError(404, 'share_link_not_found', 'There is no such share link in this workspace.');
        return toShareLink(found.row, {
          createdBy: found.createdBy,
          savedQueryName: found.savedQueryName,
          tagNames: found.tagNames,
        });
      },
    );
  };
  await app.register(signedInRoutes);
};
