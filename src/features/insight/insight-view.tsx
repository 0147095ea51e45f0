// The view every dashboard shares, read from the address: the workspace, its time zone, the scope (saved or ad-hoc
// query, range, filters, refinements), the request body that follows from it, and the two ways to change it —
// setScope (the scope bar, the chips) and drill (a chart element: filtered posts or profiles with one more
// refinement). A preset range ends "now", fixed once per view so every dashboard of the view asks the same range.
import { createContext, useCallback, useContext, useMemo, type ReactNode } from 'react';
import { useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useSuspenseQuery } from '@tanstack/react-query';
import type { InsightsBody, Refine } from '@contract/insights';
import type { WorkspaceResponse } from '@contract/workspaces';
import { workspaceQuery } from '@/api/queries';
import { useApp } from '@/components/use-app';
import { searchFromScope } from './insight-scope';
import { startNewView, viewKeyOf, viewOf } from './dashboard-query';
import type { InsightScope, InsightSearchParams } from './insight-search';
import { sameRefine } from './refine-codec';
import { ReadOnlyContext } from './read-only';

type SearchUpdate = (previous: Record<string, unknown>) => Record<string, unknown>;

/**
 * Changes the current address's search params (a dashboard's sort or page). The dashboards share this code across
 * routes whose search types differ, so the update is typed loosely here, once; each route's validateSearch checks
 * the result.
 */
export function useSearchUpdate() {
  const navigate = useNavigate();
  return useCallback(
    (update: SearchUpdate, options: { replace?: boolean } = {}) =>
      void navigate({ to: '.', search: update as never, ...options }),
    [navigate],
  );
}

export interface InsightView {
  workspaceId: string;
  workspace: WorkspaceResponse;
  timeZone: string;
  scope: InsightScope;
  /** The scope's params, for links to other dashboards. */
  search: InsightSearchParams;
  body: InsightsBody;
  /** Changes the scope (pushes a history entry; the lists go back to their first page). */
  setScope: (next: Partial<InsightScope>) => void;
  /**
   * Opens filtered posts (or profiles) with these refinements added to the view's; given a saved query (Compare), of
   * that query, and given null, of every post.
   */
  drill: (
    refines: Refine[],
    target?: 'filtered-posts' | 'filtered-profiles',
    savedQueryId?: string | null,
  ) => void;
}

const InsightViewContext = createContext<InsightView | null>(null);

export function useInsightView(): InsightView {
  const view = useContext(InsightViewContext);
  if (!view) throw new Error('useInsightView outside the insight layout');
  return view;
}

/** Adds refinements to a list, leaving out those it already has (an included one replaces its excluded twin). */
function withRefines(current: readonly Refine[], added: readonly Refine[]): Refine[] {
  const kept = current.filter((refine) => !added.some((next) => sameRefine(refine, next)));
  return [...kept, ...added];
}

export function InsightViewProvider({ children }: { children: ReactNode }) {
  const { api } = useApp();
  const { workspaceId } = useParams({ from: '/_authed/workspace/$workspaceId/insight' });
  const workspace = useSuspenseQuery(workspaceQuery(api, workspaceId)).data;
  const raw = useSearch({ from: '/_authed/workspace/$workspaceId/insight' });
  const navigate = useNavigate();
  const updateSearch = useSearchUpdate();
  const timeZone = workspace.time_zone;

  // The same view, and so the same body, as the dashboard route's loader made of the address (dashboard-query.ts).
  const scopeKey = viewKeyOf(raw);
  const view = useMemo(
    (): Omit<InsightView, 'setScope' | 'drill'> => ({
      workspaceId,
      workspace,
      timeZone,
      ...viewOf(workspaceId, timeZone, scopeKey),
    }),
    [scopeKey, workspaceId, workspace, timeZone],
  );

  const setScope = useCallback(
    (next: Partial<InsightScope>) => {
      const scope = { ...view.scope, ...next };
      // Asking for a preset anew (or "now") starts a new view: its range ends at this instant.
      if ('range' in next || ('end' in next && next.end === null)) startNewView(workspaceId, scope);
      // The sort stays, and Compare's choices (its mode, saved queries and tags); the page goes back to the first (a
      // cursor belongs to the old scope).
      const kept = ['sort', 'mode', 'compare', 'tags'];
      updateSearch((previous) => ({
        ...searchFromScope(scope),
        ...Object.fromEntries(
          kept.flatMap((key) => (typeof previous[key] === 'string' ? [[key, previous[key]]] : [])),
        ),
      }));
    },
    [view.scope, updateSearch, workspaceId],
  );
  const drill = useCallback(
    (
      refines: Refine[],
      target: 'filtered-posts' | 'filtered-profiles' = 'filtered-posts',
      savedQueryId?: string | null,
    ) => {
      const refine = withRefines(view.scope.refine, refines);
      const scope =
        savedQueryId !== undefined
          ? { ...view.scope, savedQueryId, q: '', refine }
          : { ...view.scope, refine };
      void navigate({
        to: `/workspace/$workspaceId/insight/${target}`,
        params: { workspaceId },
        search: searchFromScope(scope) as never,
      });
    },
    [view.scope, navigate, workspaceId],
  );

  const value = useMemo(() => ({ ...view, setScope, drill }), [view, setScope, drill]);
  return <InsightViewContext.Provider value={value}>{children}</InsightViewContext.Provider>;
}

/**
 * A view drawn read-only (a shared view: SharedPage.tsx): the bodies of the dashboards read its time zone and
 * body, and its drill-downs and links do nothing (ReadOnlyContext turns them off). Nothing of a workspace is known.
 */
export function ReadOnlyInsightView({
  timeZone,
  body,
  mode = 'shared',
  children,
}: {
  timeZone: string;
  body: InsightsBody;
  /** A report: each chart with its table, as the PDF prints it. */
  mode?: 'shared' | 'report';
  children: ReactNode;
}) {
  const value = useMemo(
    (): InsightView => ({
      workspaceId: body.workspace_id,
      // Not read by the bodies a shared view draws (only the dashboards' frames and scope bar read it).
      workspace: { id: body.workspace_id, name: '', time_zone: timeZone } as unknown as WorkspaceResponse,
      timeZone,
      scope: {
        savedQueryId: null,
        q: '',
        range: '30d',
        from: null,
        to: null,
        end: null,
        platforms: [],
        languages: [],
        refine: [],
      },
      search: {},
      body,
      setScope: () => {},
      drill: () => {},
    }),
    [timeZone, body],
  );
  return (
    <ReadOnlyContext.Provider value={mode}>
      <InsightViewContext.Provider value={value}>{children}</InsightViewContext.Provider>
    </ReadOnlyContext.Provider>
  );
}
