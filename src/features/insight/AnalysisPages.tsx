// People, Performance and Conversation: leaderboards, engagement by platform, media and kind with the best time to
// post, and what people say (hashtags, mentions, domains, words with their sentiment, emerging words). Every bar,
// row and heatmap cell drills down to filtered posts.
import { useMemo } from 'react';
import { Link, useSearch } from '@tanstack/react-router';
import type { ChartConfiguration } from 'chart.js';
import { PROFILE_SORTS, type ProfileSort, type Refine } from '../../contract/insights';
import type { ConversationResponse, PerformanceResponse } from '../../contract/insights-responses';
import { platformName } from '../../lib/platforms';
import { ChartCard, type TableColumn } from './ChartCard';
import { COLORS } from './charts/colors';
import { horizontalBarHeight, horizontalBarOptions } from './charts/bar-labels';
import { DashboardFrame, InsightBody, useInsight } from './DashboardFrame';
import { DASHBOARD_PAGES } from './dashboard-pages';
import { formatCompact, formatDecimal, formatShare, formatWhole } from './insight-format';
import { useInsightView, useSearchUpdate } from './insight-view';
import { PeopleTable } from './PeopleTable';
import { BestTime } from './BestTime';

// People.

const PEOPLE_TABS: Record<ProfileSort, string> = {
  mentions: 'Most posts',
  followers: 'Most followers',
  engagement: 'Most engagement',
};

export function PeoplePage() {
  const result = useInsight('people', { limit: 50 });
  const search = useSearch({ strict: false }) as { sort?: ProfileSort };
  const update = useSearchUpdate();
  const sort = search.sort ?? 'mentions';
  const { workspaceId, search: scopeSearch } = useInsightView();
  return (
    <DashboardFrame title={DASHBOARD_PAGES.people.title} description={DASHBOARD_PAGES.people.description}>
      <InsightBody result={result} skeleton={DASHBOARD_PAGES.people.skeleton}>
        {(data) => {
          const list = {
            mentions: data.by_mentions,
            followers: data.by_followers,
            engagement: data.by_engagement,
          }[sort];
          return (
            <>
              <ul className="tiles" aria-label="People in this range">
                <li className="tile">
                  <span className="tile-label">Unique authors</span>
                  <strong className="tile-value">{formatWhole(data.unique_authors)}</strong>
                </li>
                <li className="tile">
                  <span className="tile-label">Posts per author</span>
                  <strong className="tile-value">{formatDecimal(data.average_mentions_per_author)}</strong>
                </li>
              </ul>
              <div className="segmented tabs" role="group" aria-label="Rank people by">
                {PROFILE_SORTS.map((option) => (
                  <button
                    key={option}
                    type="button"
                    aria-pressed={sort === option}
                    onClick={() =>
                      update((previous) => ({
                        ...previous,
                        sort: option === 'mentions' ? undefined : option,
                      }))
                    }
                  >
                    {PEOPLE_TABS[option]}
                  </button>
                ))}
              </div>
              <PeopleTable
                title={`Top ${list.length} by ${PEOPLE_TABS[sort].toLowerCase().replace('most ', '')}`}
                people={list}
                caption="People"
                dashboard="people"
                meta={{
                  timeZone: data.time_zone,
                  range: data.range,
                  counted: data.counted,
                  query: data.query,
                }}
              />
              <p>
                <Link
                  to="/workspace/$workspaceId/insight/filtered-profiles"
                  params={{ workspaceId }}
                  search={scopeSearch}
                >
                  Every author of these posts, page by page
                </Link>
              </p>
            </>
          );
        }}
      </InsightBody>
    </DashboardFrame>
  );
}

// Performance.

type Metrics = PerformanceResponse['by_platform'][number];
const metricColumns = <R extends Omit<Metrics, 'platform'>>(): Array<TableColumn<R>> => [
  { label: 'Posts', value: (row) => row.posts, numeric: true, show: (row) => formatWhole(row.posts) },
  {
    label: 'Engagement',
    value: (row) => row.engagement,
    numeric: true,
    show: (row) => formatWhole(row.engagement),
  },
  {
    label: 'Per post',
    value: (row) => row.average_engagement,
    numeric: true,
    show: (row) => formatDecimal(row.average_engagement),
  },
  {
    label: 'Engagement rate',
    value: (row) => row.engagement_rate,
    numeric: true,
    show: (row) => formatShare(row.engagement_rate),
  },
  { label: 'Likes', value: (row) => row.likes, numeric: true },
  { label: 'Comments', value: (row) => row.comments, numeric: true },
  { label: 'Shares', value: (row) => row.shares, numeric: true },
  { label: 'Views', value: (row) => row.views, numeric: true },
];

const barChart = (labels: string[], values: Array<number | null>, label: string): ChartConfiguration => ({
  type: 'bar',
  data: { labels, datasets: [{ label, data: values, backgroundColor: COLORS.series }] },
  options: { plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true } } },
});

export function PerformancePage() {
  const result = useInsight('performance');
  return (
    <DashboardFrame
      title={DASHBOARD_PAGES.performance.title}
      description={DASHBOARD_PAGES.performance.description}
    >
      <InsightBody result={result} skeleton={DASHBOARD_PAGES.performance.skeleton}>
        {(data) => <Performance data={data} />}
      </InsightBody>
    </DashboardFrame>
  );
}

function Performance({ data }: { data: PerformanceResponse }) {
  const { drill } = useInsightView();
  const meta = { timeZone: data.time_zone, range: data.range, counted: data.counted, query: data.query };
  const groups = [
    {
      title: 'By platform',
      rows: data.by_platform.map((row) => ({
        ...row,
        name: platformName(row.platform),
        refine: { field: 'platform', values: [row.platform] } as Refine,
      })),
    },
    {
      title: 'By media',
      rows: data.by_media.map((row) => ({
        ...row,
        name: row.media,
        refine: { field: 'media', values: [row.media] } as Refine,
      })),
    },
    {
      title: 'By kind',
      rows: data.by_kind.map((row) => ({
        ...row,
        name: row.kind,
        refine: { field: 'kind', values: [row.kind] } as Refine,
      })),
    },
  ];
  const { totals } = data;
  return (
    <div className="dashboard-grid">
      <ul className="tiles" aria-label="Totals">
        {[
          ['Posts', formatWhole(totals.posts)],
          ['Engagement', formatCompact(totals.engagement)],
          ['Per post', formatDecimal(totals.average_engagement)],
          ['Engagement rate', formatShare(totals.engagement_rate)],
          ['Views', formatCompact(totals.views)],
        ].map(([label, value]) => (
          <li key={label} className="tile">
            <span className="tile-label">{label}</span>
            <strong className="tile-value">{value}</strong>
          </li>
        ))}
      </ul>
      {groups.map((group) => (
        <ChartCard
          key={group.title}
          title={`Engagement per post ${group.title.toLowerCase()}`}
          dashboard="performance"
          meta={meta}
          rows={group.rows}
          columns={[
            { label: group.title.replace('By ', ''), value: (row) => row.name },
            ...metricColumns<(typeof group.rows)[number]>(),
          ]}
          chart={{
            config: barChart(
              group.rows.map((row) => row.name),
              group.rows.map((row) => row.average_engagement),
              'Engagement per post',
            ),
            summary: group.rows
              .map((row) => `${row.name}: ${formatDecimal(row.average_engagement)}`)
              .join(', '),
          }}
          drill={{ open: (row) => drill([row.refine]), label: (row) => `Posts: ${row.name}` }}
        />
      ))}
      <BestTime data={data} meta={meta} />
      <p className="small muted wide">
        Engagement rate: per post, engagement ÷ the author’s followers, averaged over posts whose author has
        followers.
      </p>
    </div>
  );
}

// Conversation.

type Counted = ConversationResponse['hashtags'][number];

export function ConversationPage() {
  const result = useInsight('conversation', { limit: 20 });
  return (
    <DashboardFrame
      title={DASHBOARD_PAGES.conversation.title}
      description={DASHBOARD_PAGES.conversation.description}
    >
      <InsightBody result={result} skeleton={DASHBOARD_PAGES.conversation.skeleton}>
        {(data) => <Conversation data={data} />}
      </InsightBody>
    </DashboardFrame>
  );
}

function Conversation({ data }: { data: ConversationResponse }) {
  const { drill } = useInsightView();
  const meta = { timeZone: data.time_zone, range: data.range, counted: data.counted, query: data.query };
  const lists: Array<{
    title: string;
    rows: Counted[];
    field: 'hashtag' | 'mention' | 'domain';
    show: (v: string) => string;
  }> = [
    {
      title: 'Hashtags',
      rows: data.hashtags,
      field: 'hashtag',
      show: (value) => `#${value.replace(/^#/, '')}`,
    },
    {
      title: 'Mentions',
      rows: data.mentions,
      field: 'mention',
      show: (value) => `@${value.replace(/^@/, '')}`,
    },
    { title: 'Link domains', rows: data.domains, field: 'domain', show: (value) => value },
  ];
  const words = useMemo(
    (): ChartConfiguration => ({
      type: 'bar',
      data: {
        labels: data.terms.map((term) => term.value),
        datasets: [
          {
            label: 'Posts',
            data: data.terms.map((term) => term.posts),
            backgroundColor: data.terms.map((term) =>
              term.average_sentiment > 0.05
                ? COLORS.positive
                : term.average_sentiment < -0.05
                  ? COLORS.negative
                  : COLORS.neutral,
            ),
          },
        ],
      },
      options: horizontalBarOptions(),
    }),
    [data],
  );
  const sample = data.words_sample.current;
  return (
    <div className="dashboard-grid">
      {lists.map((list) => (
        <ChartCard
          key={list.field}
          title={list.title}
          dashboard="conversation"
          meta={meta}
          rows={list.rows}
          empty={`No ${list.title.toLowerCase()} in these posts.`}
          columns={[
            { label: list.title, value: (row) => row.value, show: (row) => list.show(row.value) },
            {
              label: 'Posts',
              value: (row) => row.posts,
              numeric: true,
              show: (row) => formatWhole(row.posts),
            },
          ]}
          chart={{
            config: {
              type: 'bar',
              data: {
                labels: list.rows.map((row) => list.show(row.value)),
                datasets: [
                  {
                    label: 'Posts',
                    data: list.rows.map((row) => row.posts),
                    backgroundColor: COLORS.primary,
                  },
                ],
              },
              options: horizontalBarOptions(),
            },
            summary: list.rows
              .slice(0, 5)
              .map((row) => `${list.show(row.value)} ${row.posts}`)
              .join(', '),
            height: horizontalBarHeight(list.rows.length),
          }}
          drill={{
            open: (row) => drill([{ field: list.field, values: [row.value] }]),
            label: (row) => `Posts with ${list.show(row.value)}`,
          }}
        />
      ))}
      <ChartCard
        title="Words"
        dashboard="conversation"
        meta={meta}
        rows={data.terms}
        columns={[
          { label: 'Word', value: (row) => row.value },
          { label: 'Posts', value: (row) => row.posts, numeric: true, show: (row) => formatWhole(row.posts) },
          {
            label: 'Average sentiment',
            value: (row) => row.average_sentiment,
            numeric: true,
            show: (row) => formatDecimal(row.average_sentiment),
          },
        ]}
        chart={{
          config: words,
          summary: data.terms
            .slice(0, 5)
            .map((row) => `${row.value} ${row.posts}`)
            .join(', '),
          height: horizontalBarHeight(data.terms.length),
        }}
        drill={{
          open: (row) => drill([{ field: 'term', values: [row.value] }]),
          label: (row) => `Posts with “${row.value}”`,
        }}
        footer={
          <p className="small muted">
            Green words lean positive, orange negative, grey neutral.{' '}
            {sample.estimated
              ? `Counted in a sample of ${formatWhole(sample.sampled)} of about ${formatWhole(sample.posts)} posts.`
              : `Counted in all ${formatWhole(sample.posts)} posts.`}
          </p>
        }
      />
      <ChartCard
        title="Emerging words"
        dashboard="conversation"
        meta={meta}
        rows={data.emerging}
        empty="No word grew against the previous period."
        columns={[
          { label: 'Word', value: (row) => row.value },
          { label: 'Posts', value: (row) => row.posts, numeric: true },
          { label: 'Before', value: (row) => row.previous_posts, numeric: true },
          {
            label: 'Growth',
            value: (row) => row.ratio,
            numeric: true,
            show: (row) => `× ${formatDecimal(row.ratio)}`,
          },
        ]}
        drill={{
          open: (row) => drill([{ field: 'term', values: [row.value] }]),
          label: (row) => `Posts with “${row.value}”`,
        }}
        footer={<p className="small muted">Emerging: {data.emerging_rule}</p>}
      />
    </div>
  );
}
