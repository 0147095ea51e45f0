// A shared view, opened without signing in (/shared#token=…): the token is read from the fragment (which browsers
// never send to a server), kept for this tab only (a reload still works) and taken out of the address; the page then
// shows what the link shows — one dashboard's figures, read-only: no drill-down, no link into the workspace — or why
// it shows nothing (revoked, expired, the plan expired, never existed). With `&report=1` in the fragment it is drawn as
// a report, for the server to print as a PDF: every chart with its table, the time it was made.
import { useEffect, useLayoutEffect, useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { CompareResponse } from '@contract/insights-compare';
import type {
  ConversationResponse,
  OverviewResponse,
  PeopleResponse,
  PerformanceResponse,
  PostsResponse,
  ProfilesResponse,
} from '@contract/insights-responses';
import { SHARED_VIEW_TITLES, type SharedViewMeta } from '@contract/share-links';
import { apiProblem, preparingWait } from '@/api/errors';
import { sharedAnswerQuery, sharedViewQuery } from '@/api/share-links';
import { PostCard } from '@/components/PostCard';
import { FormError } from '@/components/Field';
import { FiguresWait } from '@/components/FiguresWait';
import { Pending } from '@/components/Pending';
import { useApp } from '@/components/use-app';
import { formatDate, formatDateTime, formatDateTimeRange } from '@/lib/date-time';
import { removePrerender } from '@/lib/prerender';
import { termPatterns } from '@/components/query-editor/match-terms';
import { Compare } from './CompareAnswer';
import { Conversation } from './ConversationPage';
import { DashboardSkeleton } from './DashboardSkeleton';
import { ReadOnlyInsightView } from './insight-view';
import { Overview } from './OverviewPage';
import { PeopleTable } from './PeopleTable';
import { Performance } from './PerformancePage';
import './insight.css';

const TOKEN_KEY = 'murmur.shared-token';

/**
 * The link's token: from the fragment (then kept for this tab and taken out of the address), or this tab's; and
 * whether the page is drawn as a report (`&report=1`: the server printing it as a PDF, server/sharing/report.ts).
 */
function takeToken(): { token: string | null; report: boolean } {
  const hash = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const fromHash = hash.get('token');
  if (fromHash) {
    sessionStorage.setItem(TOKEN_KEY, fromHash);
    window.history.replaceState(window.history.state, '', window.location.pathname);
    return { token: fromHash, report: hash.get('report') === '1' };
  }
  return { token: sessionStorage.getItem(TOKEN_KEY), report: false };
}

/** Tells the printer the report is drawn (or failed): an attribute of the document. */
function useReportDone(report: boolean, state: 'ready' | 'failed' | null) {
  useEffect(() => {
    if (!report || !state) return;
    // Two frames: the charts' first drawing happens after React's commit.
    let second = 0;
    const first = requestAnimationFrame(() => {
      second = requestAnimationFrame(() => document.documentElement.setAttribute('data-report', state));
    });
    return () => {
      cancelAnimationFrame(first);
      cancelAnimationFrame(second);
    };
  }, [report, state]);
}

export function SharedPage() {
  const { api } = useApp();
  const [{ token, report }] = useState(takeToken);
  useLayoutEffect(removePrerender, []);
  // Not for search engines, whatever the server's header says.
  useEffect(() => {
    const meta = document.createElement('meta');
    meta.name = 'robots';
    meta.content = 'noindex, nofollow';
    document.head.append(meta);
    return () => meta.remove();
  }, []);
  const view = useQuery({ ...sharedViewQuery(api, token ?? ''), enabled: Boolean(token) });
  useReportDone(report, view.isError ? 'failed' : null);
  return (
    <main className="shared-page">
      {!token ? (
        <Problem message="This link has no token. Open the link you were sent again." />
      ) : view.isError ? (
        <Problem message={apiProblem(view.error).message} />
      ) : !view.data ? (
        <Pending label="Opening the shared view…" />
      ) : (
        <SharedView token={token} meta={view.data} report={report} />
      )}
    </main>
  );
}

function Problem({ message }: { message: string }) {
  return (
    <section className="centered-screen">
      <h1>This shared view cannot be shown</h1>
      <FormError message={message} />
    </section>
  );
}

function SharedView({ token, meta, report }: { token: string; meta: SharedViewMeta; report: boolean }) {
  const { api } = useApp();
  const answer = useQuery(sharedAnswerQuery(api, token, meta.dashboard));
  const [made] = useState(() => new Date().toISOString());
  // Figures being prepared: the page asks again until they are; a report being printed fails at once instead of
  // holding the printer (server/sharing/report.ts) for as long as a rebuild takes.
  const preparing = preparingWait(answer.failureReason);
  useReportDone(report, answer.isError || preparing ? 'failed' : answer.data ? 'ready' : null);
  useEffect(() => {
    document.title = `${meta.title} · ${SHARED_VIEW_TITLES[meta.dashboard]} · shared from Murmur`;
  }, [meta]);
  return (
    <>
      <header className="shared-header">
        <p className="small muted">
          {report ? (
            <>A report of {meta.workspace_name} on Murmur</>
          ) : (
            <>
              Shared read-only from {meta.workspace_name} on Murmur · expires{' '}
              {formatDate(meta.expires_at, meta.time_zone)}
            </>
          )}
        </p>
        <h1>
          {SHARED_VIEW_TITLES[meta.dashboard]}: {meta.title}
        </h1>
        <p className="small muted">
          {meta.dashboard === 'compare' ? (
            'Saved queries side by side'
          ) : meta.query === null ? (
            'Every post'
          ) : (
            <>
              Query: <code>{meta.query}</code>
            </>
          )}{' '}
          · {meta.time_zone}
          {meta.rolling ? ' · the range ends when the page is opened' : ''}
        </p>
        {report ? (
          <p className="small muted">
            Report made {formatDateTime(made, meta.time_zone)} ({meta.time_zone})
          </p>
        ) : null}
      </header>
      {preparing && !answer.data ? (
        <FiguresWait wait={preparing} asking={!answer.isError} />
      ) : answer.isError ? (
        <FormError message={apiProblem(answer.error).message} />
      ) : !answer.data ? (
        <DashboardSkeleton cards={4} />
      ) : (
        <SharedBody meta={meta} data={answer.data} report={report} />
      )}
    </>
  );
}

function SharedBody({
  meta,
  data,
  report,
}: {
  meta: SharedViewMeta;
  data: { range: { from: string; to: string }; time_zone: string };
  report: boolean;
}) {
  // The view's body as the bodies read it: its zone and range (nothing of the workspace is known here).
  const body = useMemo(
    () => ({ workspace_id: 'shared', filters: { from: data.range.from, to: data.range.to } }),
    [data.range.from, data.range.to],
  );
  return (
    <ReadOnlyInsightView timeZone={data.time_zone} body={body} mode={report ? 'report' : 'shared'}>
      <div className="insight-body">
        <p className="range-line small muted">{formatDateTimeRange(data.range, data.time_zone)}</p>
        {meta.dashboard === 'compare' ? (
          <Compare data={data as CompareResponse} />
        ) : meta.dashboard === 'overview' ? (
          <Overview data={data as OverviewResponse} />
        ) : meta.dashboard === 'performance' ? (
          <Performance data={data as PerformanceResponse} />
        ) : meta.dashboard === 'conversation' ? (
          <Conversation data={data as ConversationResponse} />
        ) : meta.dashboard === 'people' ? (
          <SharedPeople data={data as PeopleResponse} />
        ) : meta.dashboard === 'filtered-profiles' ? (
          <SharedProfiles data={data as ProfilesResponse} />
        ) : (
          <SharedPosts data={data as PostsResponse} />
        )}
      </div>
    </ReadOnlyInsightView>
  );
}

const metaOf = (data: {
  time_zone: string;
  range: { from: string; to: string };
  counted: string;
  query: string | null;
}) => ({
  timeZone: data.time_zone,
  range: data.range,
  counted: data.counted,
  query: data.query,
});

function SharedPeople({ data }: { data: PeopleResponse }) {
  return (
    <PeopleTable
      people={data.by_mentions}
      caption="People by mentions"
      title="People by mentions"
      dashboard="people"
      meta={metaOf(data)}
    />
  );
}

function SharedProfiles({ data }: { data: ProfilesResponse }) {
  return (
    <PeopleTable
      people={data.profiles}
      caption={`${data.profiles.length} of ${data.total} authors`}
      title="Authors"
      dashboard="filtered-profiles"
      meta={metaOf(data)}
    />
  );
}

function SharedPosts({ data }: { data: PostsResponse }) {
  const patterns = termPatterns(data.query ?? '');
  return (
    <>
      <p className="counted small muted">{data.counted}</p>
      {data.posts.length ? (
        <>
          <p className="small muted">
            The first {data.posts.length} of {data.total} posts.
          </p>
          <ol className="post-list static" aria-label={`${data.posts.length} posts`}>
            {data.posts.map((post) => (
              <li key={post.id} className="post-list-item">
                <PostCard post={post} timeZone={data.time_zone} patterns={patterns} />
              </li>
            ))}
          </ol>
        </>
      ) : (
        <p className="chart-empty muted">No posts match in this range.</p>
      )}
    </>
  );
}
