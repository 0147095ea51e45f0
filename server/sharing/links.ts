// Read-only share links (docs/sharing.md): their tokens (32 random bytes, base64url; only the SHA-256 kept, so a
// database dump opens nothing), their rows as the API lists them, and opening one by its token: the link, its
// workspace and the view it shows, or the reason it shows nothing (never found, revoked, expired, the plan expired).
import { createHash, randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { INSIGHT_DASHBOARDS } from '@contract/insights-dashboards';
import {
  compareViewSchema,
  sharedViewSchema,
  type CompareView,
  type ShareLink,
  type SharedDashboard,
  type SharedView,
} from '@contract/share-links';
import type { Db } from '@server/db/database';
import { workspaces } from '@server/db/schema';
import { shareLinks } from '@server/db/social-schema';
import { ApiError } from '@server/errors';
import { NO_CORRECTIONS } from '@server/social/corrections';
import { resolveCompare } from '@server/social/insights/compare';
import { resolveInsightScope } from '@server/social/insights/request';

/** A dashboard's view, or Compare's. */
export type AnyView = SharedView | CompareView;

/** The view of a dashboard (its schema: Compare's or the dashboards'). */
const viewSchemaOf = (dashboard: string) => (dashboard === 'compare' ? compareViewSchema : sharedViewSchema);

/** Compare's title: the names of its saved queries, in order. */
const compareTitle = (names: readonly (string | null)[]) =>
  names.map((name) => name ?? 'A deleted saved query').join(' vs ');

/** Compare's title in tags mode: its tags ("Category › Tag"), in order, and what they are compared within. */
const tagsTitle = (tagNames: string | null, within: string) => `${tagNames ?? 'Deleted tags'} (${within})`;

/**
 * A view as its dashboard (or Compare) would take it, resolved as it would be (query, saved queries of the workspace,
 * refinements): 400 for one the dashboard would refuse, 404 for a saved query not in the workspace. Its title.
 */
export async function checkSharedView(
  db: Db,
  workspace: { id: string; timeZone: string },
  dashboard: SharedDashboard,
  view: AnyView,
): Promise<{ title: string; query: string | null; timeZone: string }> {
  if (dashboard === 'compare') {
    // Each saved query resolved as Compare resolves it (the same range for all); the plan's history is the answer's.
    const contexts = await resolveCompare(
      db,
      workspace,
      { ...(view as CompareView), workspace_id: workspace.id },
      { start: null, historyDays: null, planName: '' },
    );
    return {
      // Tags compared: their names and the saved query they are compared in, as the links' list names them.
      title: contexts[0]!.tag
        ? tagsTitle(
            contexts.map((context) => context.tag!.name).join(' vs '),
            contexts[0]!.savedQueryId === null
              ? 'All posts'
              : (contexts[0]!.savedQueryName ?? 'A deleted saved query'),
          )
        : compareTitle(contexts.map((context) => context.savedQueryName)),
      query: null,
      timeZone: contexts[0]!.timeZone,
    };
  }
  const body = { ...view, workspace_id: workspace.id };
  if (!INSIGHT_DASHBOARDS[dashboard].body.safeParse(body).success) {
    throw new ApiError(400, 'invalid_request', `The ${dashboard} dashboard cannot show this view.`);
  }
  // Its title and query only: no figures, so no corrections to read.
  const scope = await resolveInsightScope(
    db,
    workspace,
    body as SharedView & { workspace_id: string },
    new Date(),
    NO_CORRECTIONS,
  );
  return {
    title: viewTitle(view, scope.savedQueryName, null),
    query: scope.normalized,
    timeZone: scope.timeZone,
  };
}

export const newShareToken = () => randomBytes(32).toString('base64url');
export const hashShareToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

type LinkRow = typeof shareLinks.$inferSelect;

/**
 * The saved query's name, or the ad-hoc query's text; Compare's saved queries' names (`savedQueryName`); Compare's
 * tags (`tagNames`) and what they are compared within.
 */
function viewTitle(view: AnyView, savedQueryName: string | null, tagNames: string | null): string {
  if ('saved_query_ids' in view && view.saved_query_ids) return savedQueryName ?? 'Deleted saved queries';
  const within = view.saved_query_id
    ? (savedQueryName ?? 'A deleted saved query')
    : ('query' in view ? view.query : undefined)?.trim() || 'All posts';
  return 'tag_ids' in view && view.tag_ids ? tagsTitle(tagNames, within) : within;
}

export function toShareLink(
  row: LinkRow,
  {
    createdBy,
    savedQueryName,
    tagNames = null,
    title,
    now = new Date(),
  }: {
    createdBy: string | null;
    savedQueryName: string | null;
    tagNames?: string | null;
    /** The title checkSharedView gave the view as it was made. */
    title?: string;
    now?: Date;
  },
): ShareLink {
  const view = viewSchemaOf(row.dashboard).parse(row.view);
  return {
    id: row.id,
    name: row.name,
    dashboard: row.dashboard as SharedDashboard,
    title: title ?? viewTitle(view, savedQueryName, tagNames),
    rolling: row.rolling,
    range: { from: view.filters!.from!, to: view.filters!.to! },
    created_by: createdBy,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    revoked_at: row.revokedAt?.toISOString() ?? null,
    last_opened_at: row.lastOpenedAt?.toISOString() ?? null,
    opens: row.opens,
    status: row.revokedAt ? 'revoked' : row.expiresAt <= now ? 'expired' : 'active',
  };
}

export interface OpenedLink {
  link: LinkRow;
  view: AnyView;
  workspace: { id: string; name: string; plan: string; timeZone: string };
}

const formatDay = (date: Date) => date.toISOString().slice(0, 10);

/**
 * The link of `token` and what it shows, its range moved to end now when it is rolling; or the reason it shows
 * nothing, with no data: 404 share_link_not_found (no such token), 410 share_link_revoked, 410 share_link_expired,
 * 403 plan_expired (the workspace's plan has expired: the link works again once it is renewed).
 */
export async function openShareLink(db: Db, token: string, now = new Date()): Promise<OpenedLink> {
  const [found] = await db
    .select({ link: shareLinks, workspace: workspaces })
    .from(shareLinks)
    .innerJoin(workspaces, eq(workspaces.id, shareLinks.workspaceId))
    .where(eq(shareLinks.tokenHash, hashShareToken(token)));
  if (!found)
    throw new ApiError(
      404,
      'share_link_not_found',
      'This link does not exist. Ask whoever sent it for a new one.',
    );
  const { link, workspace } = found;
  if (link.revokedAt) {
    throw new ApiError(
      410,
      'share_link_revoked',
      'This link was revoked. Ask whoever sent it for a new one.',
    );
  }
  if (link.expiresAt <= now) {
    throw new ApiError(
      410,
      'share_link_expired',
      `This link expired on ${formatDay(link.expiresAt)}. Ask whoever sent it for a new one.`,
    );
  }
  if (workspace.planExpiredAt && workspace.planExpiredAt <= now) {
    throw new ApiError(
      403,
      'plan_expired',
      'The plan of the workspace this link belongs to has expired: it shows nothing until the plan is renewed.',
    );
  }
  const parsed = viewSchemaOf(link.dashboard).safeParse(link.view);
  if (!parsed.success) throw new ApiError(404, 'share_link_not_found', 'This link cannot be shown any more.');
  let view = parsed.data;
  if (link.rolling) {
    // As long as it was made, ending at the start of this minute (views opened within a minute share an answer).
    const from = Date.parse(view.filters!.from!);
    const to = Date.parse(view.filters!.to!);
    const end = Math.floor(now.getTime() / 60_000) * 60_000;
    view = {
      ...view,
      filters: {
        ...view.filters,
        from: new Date(end - (to - from)).toISOString(),
        to: new Date(end).toISOString(),
      },
    };
  }
  return {
    link,
    view,
    workspace: { id: workspace.id, name: workspace.name, plan: workspace.plan, timeZone: workspace.timeZone },
  };
}

/** Counts an opening of the link (when it was last opened, how often). */
export async function noteOpened(db: Db, linkId: string): Promise<void> {
  await db
    .update(shareLinks)
    .set({ lastOpenedAt: sql`now()`, opens: sql`${shareLinks.opens} + 1` })
    .where(eq(shareLinks.id, linkId));
}
