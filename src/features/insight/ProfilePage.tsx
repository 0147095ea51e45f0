// A profile's page in the view's scope: who it is, its posts and their engagement per day (a chart with its table,
// each day opening those posts in filtered posts), and its posts themselves (the filtered-posts list with an author
// refinement: paged, newest or most engagement first). Opened from discover or a dashboard; a back link returns there.
import { useMemo } from 'react';
import type { ChartConfiguration } from 'chart.js';
import { useParams, useSearch } from '@tanstack/react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { insightQuery, profileDetailQuery } from '@/api/insights';
import { apiProblem } from '@/api/errors';
import { POST_SORTS, type PostSort } from '@contract/insights';
import type { ProfileDetailResponse } from '@contract/social-detail';
import { EmptyState } from '@/components/PageFrame';
import { platformName } from '@/lib/platforms';
import { ChartCard } from './ChartCard';
import { COLORS } from './charts/colors';
import { DashboardFrame, InsightBody, InsightFailure, InsightPending } from './DashboardFrame';
import { BackLink } from './DetailLinks';
import { parseCorpusId } from './detail-search';
import { formatBucket, formatCompact, formatWhole } from './insight-format';
import { useInsightView } from './insight-view';
import { PostList } from './PostListPage';
import { SortSelect, usePaging } from './list-paging';
import { useApp } from '@/components/use-app';

const ROUTE = '/_authed/workspace/$workspaceId/insight/profile/$profileId';
const PAGE_SIZE = 25;
const SORT_LABELS: Record<PostSort, string> = {
  recency: 'Newest',
  engagement: 'Most engagement',
  overperformance: 'Above their usual',
};

export function ProfilePage() {
  const { api } = useApp();
  const { body } = useInsightView();
  const { profileId } = useParams({ from: ROUTE });
  const { back } = useSearch({ from: ROUTE });
  const id = parseCorpusId(profileId);
  const result = useQuery({
    ...profileDetailQuery(api, body, id ?? 0),
    enabled: id !== null,
    placeholderData: keepPreviousData,
  });
  const profile = result.data?.profile;
  return (
    <DashboardFrame
      title={profile ? `${profile.display_name} (@${profile.handle})` : 'Profile'}
      description="A profile's posts in this view: how many per day, their engagement, and the posts themselves."
      actions={<BackLink back={back === 'profile' ? undefined : back} />}
    >
      {id === null || (result.error && apiProblem(result.error).status === 404) ? (
        <EmptyState title="There is no such profile">
          {id === null ? 'This address does not name a profile.' : 'No profile has this id.'}
        </EmptyState>
      ) : (
        <>
          <InsightBody result={result} skeleton={3}>
            {(data) => <ProfileFigures data={data} />}
          </InsightBody>
          {result.data ? <ProfilePosts profileId={id} /> : null}
        </>
      )}
    </DashboardFrame>
  );
}

function ProfileFigures({ data }: { data: ProfileDetailResponse }) {
  const { profile, days, totals, time_zone: timeZone } = data;
  const { drill } = useInsightView();
  const label = (row: (typeof days)[number]) => formatBucket(row.start, 'day', timeZone);
  const chart = useMemo(
    (): ChartConfiguration => ({
      type: 'bar',
      data: {
        labels: days.map(label),
        datasets: [
          {
            type: 'bar',
            label: 'Posts',
            data: days.map((row) => row.posts),
            backgroundColor: COLORS.primary,
            yAxisID: 'y',
          },
          {
            type: 'line',
            label: 'Engagement',
            data: days.map((row) => row.engagement),
            borderColor: COLORS.series[1],
            backgroundColor: COLORS.series[1],
            tension: 0.25,
            pointRadius: 2,
            yAxisID: 'engagement',
          },
        ],
      },
      options: {
        scales: {
          y: { beginAtZero: true, title: { display: true, text: 'Posts' }, ticks: { precision: 0 } },
          engagement: {
            beginAtZero: true,
            position: 'right',
            grid: { drawOnChartArea: false },
            title: { display: true, text: 'Engagement' },
          },
        },
      },
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [data],
  );
  const busiest = days.reduce<(typeof days)[number] | null>(
    (best, row) => (row.posts > (best?.posts ?? 0) ? row : best),
    null,
  );
  return (
    <div className="dashboard-grid">
      <section className="chart-card wide profile-card" aria-labelledby="profile-about">
        <h2 id="profile-about">About</h2>
        <p>
          <strong>{profile.display_name}</strong> <span className="muted">@{profile.handle}</span>
          <span className="badge">{platformName(profile.platform)}</span>
          {profile.verified ? <span className="badge">Verified</span> : null}
        </p>
        {profile.bio ? <p className="profile-bio">{profile.bio}</p> : null}
        <p className="small muted">
          {formatWhole(profile.followers)} followers · {formatWhole(profile.following)} following
          {profile.country ? ` · ${profile.country}` : ''}
          {profile.language ? ` · writes in ${profile.language}` : ''} · id on{' '}
          {platformName(profile.platform)}: {profile.external_id}
        </p>
      </section>
      <ul className="tiles" aria-label="In this view">
        <li className="tile">
          <span className="tile-label">Posts</span>
          <span className="tile-value">{formatWhole(totals.posts)}</span>
        </li>
        <li className="tile">
          <span className="tile-label">Engagement</span>
          <span className="tile-value" title={formatWhole(totals.engagement)}>
            {formatCompact(totals.engagement)}
          </span>
        </li>
      </ul>
      <ChartCard
        wide
        title="Posts and engagement per day"
        dashboard="profile"
        meta={{ timeZone, range: data.range, counted: data.counted }}
        rows={totals.posts ? days : []}
        empty="No posts of this profile in this view. Widen the range or change the query."
        chart={{
          config: chart,
          summary: busiest
            ? `${formatWhole(totals.posts)} posts over ${days.length} days; the most on ${label(busiest)} (${busiest.posts}).`
            : 'No posts in this range.',
        }}
        columns={[
          { label: 'Day', value: (row) => row.day, show: label },
          { label: 'Posts', value: (row) => row.posts, numeric: true, show: (row) => formatWhole(row.posts) },
          {
            label: 'Engagement',
            value: (row) => row.engagement,
            numeric: true,
            show: (row) => formatWhole(row.engagement),
          },
        ]}
        drill={{
          open: (row) =>
            drill([
              { field: 'author', values: [profile.id] },
              { field: 'date', bucket: 'day', values: [row.start] },
            ]),
          label: (row) => `Posts of ${label(row)}`,
          enabled: (row) => row.posts > 0,
        }}
      />
    </div>
  );
}

/** The profile's posts in the view: the filtered-posts list with an author refinement. */
function ProfilePosts({ profileId }: { profileId: number }) {
  const { api } = useApp();
  const { body } = useInsightView();
  const paging = usePaging<PostSort>('recency');
  const authorBody = {
    ...body,
    refine: [...(body.refine ?? []), { field: 'author' as const, values: [profileId] }],
  };
  const result = useQuery({
    ...insightQuery(api, 'filtered-posts', authorBody, {
      sort: paging.sort,
      cursor: paging.cursor,
      limit: PAGE_SIZE,
    }),
    placeholderData: keepPreviousData,
  });
  return (
    <section className="profile-posts" aria-labelledby="profile-posts-title">
      <div className="list-controls">
        <h2 id="profile-posts-title">Posts</h2>
        <SortSelect sorts={POST_SORTS} labels={SORT_LABELS} value={paging.sort} onChange={paging.setSort} />
      </div>
      {result.error ? (
        <InsightFailure error={result.error} />
      ) : result.data ? (
        <PostList data={result.data} body={authorBody} page={paging.page} paging={paging} back="profile" />
      ) : (
        <InsightPending result={result} cards={2} />
      )}
    </section>
  );
}
