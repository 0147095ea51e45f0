// Performance: engagement by platform, media and kind, and the best time to post; every bar and heatmap cell drills
// down to filtered posts.
import type { ChartConfiguration } from 'chart.js';
import { type Refine } from '@contract/insights';
import type { PerformanceResponse } from '@contract/insights-responses';
import { platformName } from '@/lib/platforms';
import { ChartCard, type TableColumn } from './ChartCard';
import { COLORS } from './charts/colors';
import { DashboardFrame, InsightBody, useInsight } from './DashboardFrame';
import { DASHBOARD_PAGES } from './dashboard-pages';
import { formatCompact, formatDecimal, formatShare, formatWhole } from './insight-format';
import { useInsightView } from './insight-view';
import { BestTime } from './BestTime';

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

export function Performance({ data }: { data: PerformanceResponse }) {
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
