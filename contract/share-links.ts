// Read-only share links: one dashboard view (its saved or ad-hoc query, range, filters and refinements) that anyone
// holding the link can open without signing in, until it expires or is revoked (server/sharing). The link's token is
// in the URL's fragment (/shared#<token>), which browsers never send to a server; the page posts it in a body.
import * as z from 'zod/mini';
import { compareModeCheck, compareViewShape } from './insights-compare';
import { DASHBOARD_TITLES, INSIGHT_DASHBOARDS, type Dashboard } from './insights-dashboards';
import { insightsBodySchema } from './insights';
import { workspaceIdSchema } from './workspaces';

const SHARE_LINK_DEFAULT_DAYS = 30;
const SHARE_LINK_MAX_DAYS = 365;
/** The most links a workspace keeps active (not expired, not revoked). */
export const SHARE_LINKS_LIMIT = 100;
/** The longest name of a link (its maker's words, to tell links to the same view apart). */
export const SHARE_LINK_NAME_MAX = 80;

const dashboardSchema = z.enum(Object.keys(INSIGHT_DASHBOARDS) as [Dashboard, ...Dashboard[]]);

/** What a link or a report shows: one of the dashboards, or Compare (several saved queries side by side). */
export type SharedDashboard = Dashboard | 'compare';
const sharedDashboardSchema = z.enum([
  ...(Object.keys(INSIGHT_DASHBOARDS) as [Dashboard, ...Dashboard[]]),
  'compare' as const,
]);

/** Each shared view's name as the app shows it. */
export const SHARED_VIEW_TITLES: Record<SharedDashboard, string> = {
  ...DASHBOARD_TITLES,
  compare: 'Compare',
};

const hasRange = (view: { filters?: { from?: string; to?: string } }) =>
  Boolean(view.filters?.from && view.filters.to);
const RANGE_REQUIRED = {
  error: 'A shared view needs its range: filters.from and filters.to',
  path: ['filters'],
};

/**
 * The view a link shows: a dashboard's request without its workspace (the link's) and without a cursor; its range is
 * required (a link shows the range it was made with, or one as long ending now when rolling).
 */
export const sharedViewSchema = z
  .extend(z.omit(insightsBodySchema, { workspace_id: true }), {
    sort: z.optional(z.string().check(z.maxLength(40))),
    limit: z.optional(z.int().check(z.gte(1), z.lte(100))),
  })
  .check(z.refine(hasRange, RANGE_REQUIRED));
export type SharedView = z.infer<typeof sharedViewSchema>;

/** Compare's view (either mode): its request without the workspace, its range required. */
export const compareViewSchema = z
  .object(compareViewShape)
  .check(compareModeCheck, z.refine(hasRange, RANGE_REQUIRED));
export type CompareView = z.infer<typeof compareViewSchema>;

/** A dashboard and its view, or Compare and its view. */
const viewOf = <T extends z.core.$ZodLooseShape>(shape: T) =>
  z.union([
    z.object({ ...shape, dashboard: dashboardSchema, view: sharedViewSchema }),
    z.object({ ...shape, dashboard: z.literal('compare'), view: compareViewSchema }),
  ]);

export const createShareLinkBodySchema = viewOf({
  /** The maker's name for the link (1 to 80 characters once trimmed), shown in the list; none when absent or null. */
  name: z.optional(z.nullable(z.string().check(z.trim(), z.minLength(1), z.maxLength(SHARE_LINK_NAME_MAX)))),
  /** The range keeps its length and ends when the link is opened; otherwise it stays as made. */
  rolling: z._default(z.boolean(), false),
  expires_in_days: z._default(z.int().check(z.gte(1), z.lte(SHARE_LINK_MAX_DAYS)), SHARE_LINK_DEFAULT_DAYS),
});
export type CreateShareLinkBody = z.input<typeof createShareLinkBodySchema>;

export const shareLinkParamsSchema = z.object({ id: workspaceIdSchema, linkId: z.uuid() });

export const shareLinkSchema = z.object({
  id: z.string(),
  /** The name its maker gave it; null for none. */
  name: z.nullable(z.string()),
  dashboard: sharedDashboardSchema,
  /** The saved query's name, or the ad-hoc query's text ("All posts" for none); Compare's names joined by "vs". */
  title: z.string(),
  rolling: z.boolean(),
  /** The range as made (ISO 8601). */
  range: z.object({ from: z.string(), to: z.string() }),
  created_by: z.nullable(z.string()),
  created_at: z.string(),
  expires_at: z.string(),
  revoked_at: z.nullable(z.string()),
  last_opened_at: z.nullable(z.string()),
  opens: z.int(),
  status: z.enum(['active', 'expired', 'revoked']),
});
export type ShareLink = z.infer<typeof shareLinkSchema>;

export const createdShareLinkSchema = z.object({
  link: shareLinkSchema,
  /** Shown once: only its hash is stored. The link is `/shared#<token>`. */
  token: z.string(),
});

export const shareLinkListSchema = z.object({ links: z.array(shareLinkSchema), limit: z.int() });

/** The body of every signed-out call of a shared view: the token from the link's fragment, nothing else. */
export const sharedTokenBodySchema = z.strictObject({
  token: z.string().check(z.minLength(20), z.maxLength(100), z.regex(/^[A-Za-z0-9_-]+$/)),
});

/** What a shared page says about the view before its figures. */
export const sharedViewMetaSchema = z.object({
  dashboard: sharedDashboardSchema,
  workspace_name: z.string(),
  title: z.string(),
  /** The canonical query text, null for every post (and for Compare, whose queries are its title). */
  query: z.nullable(z.string()),
  time_zone: z.string(),
  rolling: z.boolean(),
  expires_at: z.string(),
});
export type SharedViewMeta = z.infer<typeof sharedViewMetaSchema>;

/** A dashboard view (or Compare's) as a PDF report (POST /social/insights/report). */
export const reportBodySchema = viewOf({ workspace_id: workspaceIdSchema });
