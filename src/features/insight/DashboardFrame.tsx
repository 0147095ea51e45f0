// What every dashboard page shares: its heading, the scope bar, the range it shows in the workspace's zone, and what
// the page says while its answer is on the way or when it failed — a skeleton; a query error shown at its column; a
// 429 or a 503 busy that says when it will ask again (and does); figures being prepared, with their progress, until they
// are (asked again after each Retry-After); figures unavailable, in the server's words; a 503 time-out that offers a
// narrower range.
import { useDeferredValue, useEffect, useLayoutEffect, useState, type ReactNode } from 'react';
import { Link, useSearch } from '@tanstack/react-router';
import { keepPreviousData, useQuery, useSuspenseQuery, type UseQueryResult } from '@tanstack/react-query';
import type { Dashboard } from '@contract/insights-dashboards';
import { FIGURES_PREPARING } from '@contract/figures';
import { apiProblem, figuresWait, HttpError, isBusy, preparingWait } from '@/api/errors';
import { FiguresWait } from '@/components/FiguresWait';
import { invalidQueryErrors, savedQueriesQuery } from '@/api/saved-queries';
import { formatDate, formatDateTime, formatDateTimeRange } from '@/lib/date-time';
import { PageFrame } from '@/components/PageFrame';
import { prepareCompactNumbers } from '@/lib/compact-number';
import { removePrerender } from '@/lib/prerender';
import { useApp } from '@/components/use-app';
import { useInsightView, useSearchUpdate } from './insight-view';
import { decodeRefines } from './refine-codec';
import { takeDroppedParams } from './insight-search';
import { ScopeBar } from './ScopeBar';
import { DashboardSkeleton } from './DashboardSkeleton';
import { dashboardQuery, type DashboardSearch } from './dashboard-query';

export function DashboardFrame({
  title,
  description,
  actions,
  queryPicker = true,
  children,
}: {
  title: string;
  description: string;
  actions?: ReactNode;
  /** The scope bar's "Posts" picker (Compare picks its saved queries itself). */
  queryPicker?: boolean;
  children: ReactNode;
}) {
  const notice = useInvalidLinkNotice();
  // The shell the server sent for this address (a dashboard's prerendered frame, src/lib/prerender.ts) stands over the
  // app until the app has drawn the same frame, and goes in the same frame.
  useLayoutEffect(removePrerender, []);
  // The dashboards write compact figures (tiles, posts): their format is made while the answer is on the way.
  useEffect(prepareCompactNumbers, []);
  return (
    <PageFrame title={title} description={description} actions={actions}>
      {notice ? (
        <p className="link-notice" role="status">
          {notice}
        </p>
      ) : null}
      <ScopeBar query={queryPicker} />
      {children}
    </PageFrame>
  );
}

/**
 * A link whose params were partly not understood: the address is cleaned (replaced) and the page says what was reset,
 * in the page rather than in a toast (a link opened directly renders the page before the toasts' container listens).
 */
function useInvalidLinkNotice(): string | null {
  const search = useSearch({ strict: false }) as { refine?: string };
  const update = useSearchUpdate();
  // What the route dropped when it read the address, and the refinements, which only the dashboards' chunk can check
  // (the contract's schema): the page drops those itself.
  const [dropped] = useState(takeDroppedParams);
  const badRefine = search.refine !== undefined && decodeRefines(search.refine) === null;
  const [refineDropped, setRefineDropped] = useState(false);
  if (badRefine && !refineDropped) setRefineDropped(true);
  useEffect(() => {
    if (badRefine) update((previous) => ({ ...previous, refine: undefined }), { replace: true });
  }, [badRefine, update]);
  const said = [...dropped, ...(refineDropped ? ['refine'] : [])];
  return said.length
    ? `Part of this link was not understood (${said.join(', ')}) and was reset to the default.`
    : null;
}

/**
 * A dashboard's answer for the view (the lists add sort, cursor and page size from the address): the query its route's
 * loader started (dashboard-query.ts). The previous answer stays shown while the next one loads.
 */
export function useInsight<D extends Dashboard>(dashboard: D) {
  const { api } = useApp();
  const { body } = useInsightView();
  const search = useSearch({ strict: false }) as DashboardSearch;
  return useQuery({ ...dashboardQuery(api, dashboard, body, search), placeholderData: keepPreviousData });
}

type InsightResult<T> = UseQueryResult<T, unknown>;

/**
 * Renders `children` with the answer once there is one; until then a skeleton of `skeleton` cards; on failure what
 * the failure means and what to do.
 */
export function InsightBody<
  T extends {
    range: { from: string; to: string };
    time_zone: string;
    history_clip?: { requested_from: string; history_days: number } | null;
    data_as_of?: string | null;
  },
>({
  result,
  skeleton = 4,
  children,
}: {
  result: InsightResult<T>;
  skeleton?: number;
  children: (data: T) => ReactNode;
}) {
  const { error, isFetching, failureReason } = result;
  // The answer is drawn in a background render that React splits into slices of a few milliseconds, yielding to the
  // browser between them (the query's own update is synchronous): a dashboard's charts, posts and tables arriving do
  // not hold up input for one long task. Until that render is done the page shows what it showed before.
  const data = useDeferredValue(result.data);
  // A 429 or a 503 busy is retried after its Retry-After: meanwhile the page says when.
  const waiting =
    !result.data && failureReason && (apiProblem(failureReason).status === 429 || isBusy(failureReason))
      ? failureReason
      : null;
  if ((error && !isFetching) || waiting) return <InsightFailure error={error ?? waiting} />;
  if (!data) return <InsightPending result={result} cards={skeleton} />;
  return (
    <div className="insight-body" aria-busy={isFetching || undefined}>
      <p className="range-line small muted">
        {formatDateTimeRange(data.range, data.time_zone)}
        {isFetching ? <span className="updating"> · updating…</span> : null}
      </p>
      {data.history_clip ? (
        <p className="notice warning" role="status">
          The plan keeps {data.history_clip.history_days} days of history: this range starts on{' '}
          {formatDate(data.range.from, data.time_zone)} instead of{' '}
          {formatDate(data.history_clip.requested_from, data.time_zone)}. A bigger plan (Settings › Plan)
          keeps more.
        </p>
      ) : null}
      {data.data_as_of ? (
        <p className="notice" role="status">
          These figures count posts up to {formatDateTime(data.data_as_of, data.time_zone)}: newer posts are
          still being copied to the database that computes dashboards and will be counted shortly.
        </p>
      ) : null}
      {children(data)}
    </div>
  );
}

/**
 * What stands where the figures go until they come: their progress while they are prepared (the query asks again
 * after each Retry-After, src/api/errors.ts), otherwise a skeleton of `cards` cards.
 */
export function InsightPending({
  result,
  cards,
}: {
  result: Pick<UseQueryResult<unknown, unknown>, 'failureReason'>;
  cards: number;
}) {
  const wait = preparingWait(result.failureReason);
  return wait ? <FiguresWait wait={wait} /> : <DashboardSkeleton cards={cards} />;
}

/** What a failed answer means and what to do: a query error at its column, a wait, a narrower range. */
export function InsightFailure({ error }: { error: unknown }) {
  const { api } = useApp();
  const { scope, setScope, workspaceId } = useInsightView();
  const saved = useSuspenseQuery(savedQueriesQuery(api, workspaceId)).data.saved_queries;
  const problem = apiProblem(error);
  const queryErrors = invalidQueryErrors(error);

  if (queryErrors?.length) {
    const savedQuery = saved.find((query) => query.id === scope.savedQueryId);
    const text = savedQuery?.query ?? scope.q;
    return (
      <div className="insight-failure" role="alert">
        <h2>The query has an error</h2>
        {queryErrors.map((queryError) => (
          <div key={`${queryError.column}:${queryError.message}`} className="query-error-at">
            <pre className="query-error-text">
              <code>{text}</code>
              {'\n'}
              <span aria-hidden="true">{`${' '.repeat(Math.max(0, queryError.column - 1))}^`}</span>
            </pre>
            <p>{queryError.message}</p>
          </div>
        ))}
        {savedQuery ? (
          <Link to="/workspace/$workspaceId/saved-queries" params={{ workspaceId }}>
            Edit “{savedQuery.name}” in saved queries
          </Link>
        ) : (
          <Link to="/workspace/$workspaceId/discover" params={{ workspaceId }} search={{ q: scope.q }}>
            Edit the query in discover
          </Link>
        )}
      </div>
    );
  }
  if (problem.status === 429) {
    const seconds = error instanceof HttpError ? error.retryAfterSeconds : null;
    return (
      <div className="insight-failure" role="alert">
        <h2>Too many dashboards at once</h2>
        <p>
          {problem.message} This page asks again by itself
          {seconds !== null ? ` in ${seconds} seconds` : ' shortly'}.
        </p>
      </div>
    );
  }
  if (isBusy(error)) {
    return (
      <div className="insight-failure" role="alert">
        <h2>The server is busy</h2>
        <p>
          Many dashboards are being computed right now, so this one waits its turn. This page asks again by
          itself
          {error.retryAfterSeconds !== null ? ` in ${error.retryAfterSeconds} seconds` : ' shortly'}.
        </p>
      </div>
    );
  }
  const wait = figuresWait(error);
  // Asked again for as long as a rebuild takes: this is what is left once the page stopped asking.
  if (wait?.error === FIGURES_PREPARING) return <FiguresWait wait={wait} asking={false} />;
  if (wait) {
    return (
      <div className="insight-failure" role="alert">
        <h2>The figures are unavailable</h2>
        <p>{wait.message}</p>
      </div>
    );
  }
  if (problem.status === 503) {
    return (
      <div className="insight-failure" role="alert">
        <h2>This took too long</h2>
        <p>{problem.message}</p>
        <div className="form-actions">
          {scope.range !== '7d' ? (
            <button type="button" className="button" onClick={() => setScope({ range: '7d', end: null })}>
              Show the last 7 days
            </button>
          ) : null}
          <button type="button" className="button" onClick={() => setScope({ range: '24h', end: null })}>
            Show the last 24 hours
          </button>
        </div>
      </div>
    );
  }
  return (
    <div className="insight-failure" role="alert">
      <h2>The dashboard could not be loaded</h2>
      <p>{problem.message}</p>
      {problem.code === 'invalid_refine' || problem.code === 'invalid_cursor' ? (
        <button
          type="button"
          className="button"
          onClick={() => setScope({ refine: problem.code === 'invalid_refine' ? [] : scope.refine })}
        >
          {problem.code === 'invalid_refine' ? 'Remove the refinements' : 'Back to the first page'}
        </button>
      ) : null}
    </div>
  );
}
