// A dashboard's request as its route loads it and its page reads it: the view's body (the scope in the address, the
// range resolved in the workspace's zone at the view's "now") and what the dashboard asks beyond it (a list's sort,
// cursor and page size, a leaderboard's length). Both go through dashboardQuery, so the loader's request is the one
// the page shows. Free of React and of the charts: the route's loader chunk carries it.
import type { QueryClient } from '@tanstack/react-query';
import type { Api } from '@/api/api';
import { insightQuery } from '@/api/insights';
import { workspaceQuery } from '@/api/queries';
import type { InsightsBody, PostSort, ProfileSort } from '@contract/insights';
import type { Dashboard } from '@contract/insights-dashboards';
import { insightsBody, resolveRange, scopeFromSearch, searchFromScope } from './insight-scope';
import type { InsightScope, InsightSearchParams } from './insight-search';

/** Rows of a paged list's page. */
export const LIST_PAGE_SIZE = 25;

/** The lists' sort when the address names none. */
export const DEFAULT_SORTS = {
  posts: 'engagement',
  'filtered-posts': 'recency',
  'filtered-profiles': 'mentions',
} as const satisfies Partial<Record<Dashboard, PostSort | ProfileSort>>;

/** A dashboard's own params in the address beside the scope (the lists' sort and page). */
export interface DashboardSearch {
  sort?: string;
  cursor?: string;
}

/**
 * "Now" of a view: the instant a scope was first shown, kept while the tab lives, so every dashboard of the view and
 * every render of it ask the same range (and hit the same cache) however long the reader stays. Returning to the same
 * scope later in the tab keeps its instant; "Move the range to now" or another preset starts a new view.
 */
const viewClock = new Map<string, number>();
/**
 * A view's "now" is the start of its minute: analysts of a workspace who open the same view within a minute ask the
 * very same range, which the server answers from its cache (keyed by the resolved range) instead of computing it
 * again; the newest posts a view leaves out are under a minute old, less than collection takes to bring them.
 */
const VIEW_CLOCK_STEP_MS = 60_000;
function viewNow(key: string): number {
  let now = viewClock.get(key);
  if (now === undefined) {
    now = Math.floor(Date.now() / VIEW_CLOCK_STEP_MS) * VIEW_CLOCK_STEP_MS;
    viewClock.set(key, now);
    // A bounded memory: the oldest views go first.
    if (viewClock.size > 100) viewClock.delete(viewClock.keys().next().value!);
  }
  return now;
}

/** The next view of `scope` starts at the instant it is shown (a preset asked for anew, "now"). */
export function startNewView(workspaceId: string, scope: InsightScope) {
  viewClock.delete(`${workspaceId}|${JSON.stringify(searchFromScope(scope))}`);
}

/** The key of the view the address names: the same for every address of the same scope. */
export const viewKeyOf = (raw: InsightSearchParams) => JSON.stringify(searchFromScope(scopeFromSearch(raw)));

/** The view of a scope key: its scope, the params that write it, and the body every dashboard of it sends. */
export function viewOf(workspaceId: string, timeZone: string, scopeKey: string) {
  const scope = scopeFromSearch(JSON.parse(scopeKey) as InsightSearchParams);
  const search = searchFromScope(scope);
  const range = resolveRange(scope, viewNow(`${workspaceId}|${scopeKey}`), timeZone);
  const body: InsightsBody = insightsBody(workspaceId, scope, range);
  return { scope, search, body };
}

/** What `dashboard` asks beyond the view's body. */
function extraOf(dashboard: Dashboard, search: DashboardSearch) {
  switch (dashboard) {
    case 'overview':
    case 'performance':
      return {};
    case 'conversation':
      return { limit: 20 };
    case 'people':
      return { limit: 50 };
    case 'posts':
    case 'filtered-posts':
      return {
        sort: (search.sort as PostSort | undefined) ?? DEFAULT_SORTS[dashboard],
        cursor: search.cursor,
        limit: LIST_PAGE_SIZE,
      };
    case 'filtered-profiles':
      return {
        sort: (search.sort as ProfileSort | undefined) ?? DEFAULT_SORTS[dashboard],
        cursor: search.cursor,
        limit: LIST_PAGE_SIZE,
      };
  }
}

/** The query options of `dashboard` for the view's body and the address's own params. */
export const dashboardQuery = <D extends Dashboard>(
  api: Api,
  dashboard: D,
  body: InsightsBody,
  search: DashboardSearch,
) => insightQuery(api, dashboard, body, extraOf(dashboard, search));

/**
 * A dashboard route's loader: the workspace (its zone makes the range) and then the dashboard's request, started and
 * not waited for. The page keeps the previous figures on screen while the next scope's load (and says it is
 * updating), and shows a failure where the figures go; waiting here would keep the old scope in the scope bar's
 * controls instead, and a slow or retried answer would hold the navigation. A preload (a link hovered) asks nothing:
 * each dashboard request counts against the workspace's rate limit and monthly volume.
 */
export async function loadDashboard(
  { queryClient, api }: { queryClient: QueryClient; api: Api },
  workspaceId: string,
  dashboard: Dashboard,
  search: InsightSearchParams & DashboardSearch,
  cause: 'preload' | 'enter' | 'stay',
): Promise<void> {
  if (cause === 'preload') return;
  const workspace = await queryClient.ensureQueryData(workspaceQuery(api, workspaceId));
  const { body } = viewOf(workspaceId, workspace.time_zone, viewKeyOf(search));
  // Its failure is the page's to show (the query holds it); the navigation goes on.
  queryClient.ensureQueryData(dashboardQuery(api, dashboard, body, search)).catch(() => undefined);
}
