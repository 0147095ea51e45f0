// Overview: the four figures against the previous period, mentions over time with spikes marked, sentiment split and
// over time, platforms, top posts, top people and the posts per tag of a category (CategoryBreakdown.tsx). Every chart
// element drills down to filtered posts.
import { useMemo, useRef } from 'react';
import { useSearch } from '@tanstack/react-router';
import type { ChartConfiguration } from 'chart.js';
import type { OverviewResponse } from '@contract/insights-responses';
import { rescanNote } from '@contract/sentiment-rescan';
import { platformName } from '@/lib/platforms';
import { PostCard } from '@/components/PostCard';
import { termPatterns } from '@/components/query-editor/match-terms';
import { ChartCard, Counted } from './ChartCard';
import { COLORS } from './charts/colors';
import { horizontalBarOptions } from './charts/bar-labels';
import { DashboardFrame, InsightBody, useInsight } from './DashboardFrame';
import { DASHBOARD_PAGES } from './dashboard-pages';
import {
  formatBucket,
  formatChange,
  formatCompact,
  formatDecimal,
  formatShare,
  formatWhole,
  NOT_RATED_NOTE,
} from './insight-format';
import { useInsightView } from './insight-view';
import { PeopleTable } from './PeopleTable';
import { useDetailLinks } from './DetailLinks';
import { CollectionGapsNote, gapColumn, inGap, useCollectionGaps } from './CollectionGaps';
import { bucketWindows, SpikeDrivers, whyOf, type SpikeDriversHandle } from './SpikeDrivers';
import { CategoryBreakdown } from './CategoryBreakdown';
import { SENTIMENT_LABELS, SENTIMENTS, sentimentSplit } from './sentiment-split';

type Bucket = OverviewResponse['over_time'][number];

export function OverviewPage() {
  const result = useInsight('overview');
  return (
    <DashboardFrame title={DASHBOARD_PAGES.overview.title} description={DASHBOARD_PAGES.overview.description}>
      <InsightBody result={result} skeleton={DASHBOARD_PAGES.overview.skeleton}>
        {(data) => <Overview data={data} />}
      </InsightBody>
    </DashboardFrame>
  );
}

/** A bucket's length (a week's is 7 days), to tell which buckets a collection gap spans. */
const BUCKET_MS = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000 } as const;

export function Overview({ data }: { data: OverviewResponse }) {
  const { drill, workspaceId, scope } = useInsightView();
  // A spike alert's link names its window (?why=<bucket start>), a chosen range ?why=<from>/<to>: opened at once.
  const why = whyOf(useSearch({ strict: false }));
  // A drag across the mentions chart explains the buckets it crosses.
  const drivers = useRef<SpikeDriversHandle>(null);
  const gaps = useCollectionGaps(workspaceId, scope.savedQueryId, data.range);
  const meta = { timeZone: data.time_zone, range: data.range, counted: data.counted, query: data.query };
  const label = (row: Bucket) => formatBucket(row.start, data.bucket, data.time_zone);
  const openBucket = (row: Bucket, sentiment?: (typeof SENTIMENTS)[number]) =>
    drill([
      { field: 'date', bucket: data.bucket, values: [row.start] },
      ...(sentiment ? [{ field: 'sentiment' as const, values: [sentiment] }] : []),
    ]);
  const patterns = useMemo(() => termPatterns(data.query ?? ''), [data.query]);
  const links = useDetailLinks('overview');

  const gapKey = JSON.stringify(gaps);
  const gappedBucket = (row: Bucket) => inGap(gaps, Date.parse(row.start), BUCKET_MS[data.bucket]);
  const gapped = useMemo(
    () => data.over_time.map(gappedBucket),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [data, gapKey],
  );
  const overTime = useMemo(
    (): ChartConfiguration => ({
      type: 'line',
      data: {
        labels: data.over_time.map(label),
        datasets: [
          {
            label: 'Mentions',
            data: data.over_time.map((row) => row.mentions),
            borderColor: COLORS.primary,
            backgroundColor: 'rgba(67, 56, 202, 0.12)',
            fill: true,
            tension: 0.25,
            pointRadius: data.over_time.map((row) => (row.spike ? 6 : 2)),
            pointBackgroundColor: data.over_time.map((row) => (row.spike ? COLORS.spike : COLORS.primary)),
          },
          // The buckets a collection gap spans, grey behind the line (CollectionGaps.tsx).
          ...(gapped.some(Boolean)
            ? [
                {
                  type: 'bar' as const,
                  label: 'Collection gap',
                  data: gapped.map((gap) =>
                    gap ? Math.max(1, ...data.over_time.map((row) => row.mentions)) : 0,
                  ),
                  backgroundColor: 'rgba(107, 114, 128, 0.18)',
                  barPercentage: 1,
                  categoryPercentage: 1,
                },
              ]
            : []),
        ],
      },
      options: { plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true } } },
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [data, gapped],
  );
  const sentimentOverTime = useMemo(
    (): ChartConfiguration => ({
      type: 'bar',
      data: {
        labels: data.over_time.map(label),
        datasets: SENTIMENTS.map((sentiment) => ({
          label: SENTIMENT_LABELS[sentiment],
          data: data.over_time.map((row) => row[sentiment]),
          backgroundColor: COLORS[sentiment],
        })),
      },
      options: { scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true } } },
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [data],
  );
  const { rows: sentimentRows, notRated, shareOf } = sentimentSplit(data.sentiment);
  const unratedOverTime = data.over_time.some((row) => (row.not_rated ?? 0) > 0);
  const split = useMemo(
    (): ChartConfiguration => ({
      type: 'doughnut',
      data: {
        labels: sentimentRows.map((row) => SENTIMENT_LABELS[row.sentiment]),
        datasets: [
          {
            data: sentimentRows.map((row) => row.posts),
            backgroundColor: sentimentRows.map((row) => COLORS[row.sentiment]),
          },
        ],
      },
      options: { plugins: { legend: { position: 'right' } } },
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [data],
  );
  const platforms = useMemo(
    (): ChartConfiguration => ({
      type: 'bar',
      data: {
        labels: data.platforms.map((row) => platformName(row.platform)),
        datasets: [
          {
            label: 'Mentions',
            data: data.platforms.map((row) => row.mentions),
            backgroundColor: COLORS.series,
          },
        ],
      },
      options: horizontalBarOptions(),
    }),
    [data],
  );
  const spikes = data.over_time.filter((row) => row.spike);
  const windows = bucketWindows(data, why, label);

  return (
    <div className="dashboard-grid">
      <Tiles data={data} />
      <ChartCard
        wide
        title="Mentions over time"
        dashboard="overview"
        meta={meta}
        rows={data.over_time}
        columns={[
          {
            label: data.bucket === 'hour' ? 'Hour' : data.bucket === 'day' ? 'Day' : 'Week',
            value: (row) => row.local,
            show: label,
          },
          {
            label: 'Mentions',
            value: (row) => row.mentions,
            numeric: true,
            show: (row) => formatWhole(row.mentions),
          },
          {
            label: 'Engagement',
            value: (row) => row.engagement,
            numeric: true,
            show: (row) => formatWhole(row.engagement),
          },
          { label: 'Spike', value: (row) => row.spike, show: (row) => (row.spike ? 'Spike' : '') },
          ...gapColumn(gapped.some(Boolean), gappedBucket),
        ]}
        chart={{
          config: overTime,
          summary: `Mentions per ${data.bucket}: ${data.totals.mentions.value} in all, ${spikes.length} spikes.`,
          onBrush: (first, last) => drivers.current?.explainRange(first.start, last.start),
        }}
        drill={{
          open: (row) => openBucket(row),
          label: (row) => `Posts of ${label(row)}`,
          enabled: (row) => row.mentions > 0,
        }}
        footer={
          <>
            <p className="small muted">
              {spikes.length
                ? `Spikes (red): ${spikes.map(label).join(', ')}. `
                : 'No spikes in this range. '}
              {data.spikes.rule}
            </p>
            <SpikeDrivers ref={drivers} windows={windows.spikes} others={windows.others} opened={why} />
            <CollectionGapsNote gaps={gaps} timeZone={data.time_zone} />
          </>
        }
      />
      <ChartCard
        title="Sentiment"
        dashboard="overview"
        meta={meta}
        rows={sentimentRows}
        columns={[
          {
            label: 'Sentiment',
            value: (row) => row.sentiment,
            show: (row) => SENTIMENT_LABELS[row.sentiment],
          },
          { label: 'Posts', value: (row) => row.posts, numeric: true, show: (row) => formatWhole(row.posts) },
          {
            label: notRated ? 'Share of rated' : 'Share',
            value: shareOf,
            numeric: true,
            show: (row) => formatShare(shareOf(row)),
          },
        ]}
        chart={{
          config: split,
          summary: sentimentRows.map((row) => `${SENTIMENT_LABELS[row.sentiment]} ${row.posts}`).join(', '),
        }}
        drill={{
          // Each row's own posts: `neutral` the rated neutral ones, `not_rated` the others.
          open: (row) => drill([{ field: 'sentiment', values: [row.sentiment] }]),
          label: (row) => `${SENTIMENT_LABELS[row.sentiment]} posts`,
        }}
        footer={
          <p className="small muted">
            Sentiment is estimated by a trained model (a word list for the languages it lacks; average{' '}
            {formatDecimal(data.sentiment.average)}, from −1 to 1); it can miss sarcasm and context, and your
            team's corrections count instead.{notRated > 0 && ` ${NOT_RATED_NOTE}`}
            {data.sentiment_rescan && (
              <>
                {' '}
                <span className="sentiment-rescan-note">{rescanNote(data.sentiment_rescan)}.</span>
              </>
            )}
          </p>
        }
      />
      <ChartCard
        title="Platforms"
        dashboard="overview"
        meta={meta}
        rows={data.platforms}
        columns={[
          { label: 'Platform', value: (row) => row.platform, show: (row) => platformName(row.platform) },
          {
            label: 'Mentions',
            value: (row) => row.mentions,
            numeric: true,
            show: (row) => formatWhole(row.mentions),
          },
          { label: 'Share', value: (row) => row.share, numeric: true, show: (row) => formatShare(row.share) },
        ]}
        chart={{
          config: platforms,
          summary: data.platforms.map((row) => `${platformName(row.platform)} ${row.mentions}`).join(', '),
        }}
        drill={{
          open: (row) => drill([{ field: 'platform', values: [row.platform] }]),
          label: (row) => `Posts on ${platformName(row.platform)}`,
        }}
      />
      <ChartCard
        wide
        title="Sentiment over time"
        dashboard="overview"
        meta={meta}
        rows={data.over_time}
        columns={[
          { label: 'Bucket', value: (row) => row.local, show: label },
          ...SENTIMENTS.map((sentiment) => ({
            label: SENTIMENT_LABELS[sentiment],
            value: (row: Bucket) => row[sentiment],
            numeric: true,
          })),
          ...(unratedOverTime
            ? [
                {
                  label: SENTIMENT_LABELS.not_rated,
                  value: (row: Bucket) => row.not_rated ?? 0,
                  numeric: true,
                },
              ]
            : []),
          {
            label: 'Average',
            value: (row) => row.average_sentiment,
            numeric: true,
            show: (row) => formatDecimal(row.average_sentiment),
          },
        ]}
        chart={{
          config: sentimentOverTime,
          summary:
            `Positive, neutral and negative posts per ${data.bucket}` +
            (unratedOverTime ? ' (rated posts; the table also gives the not-rated ones).' : '.'),
        }}
        drill={{
          open: (row, datasetIndex) =>
            openBucket(row, datasetIndex === undefined ? undefined : SENTIMENTS[datasetIndex]),
          label: (row) => `Posts of ${label(row)}`,
          enabled: (row) => row.mentions > 0,
        }}
      />
      <section className="chart-card" aria-labelledby="top-posts-title">
        <h2 id="top-posts-title">Top posts</h2>
        {data.top_posts.length ? (
          <ol className="top-posts">
            {data.top_posts.map((post) => (
              <li key={post.id}>
                <PostCard post={post} timeZone={data.time_zone} patterns={patterns} links={links} compact />
              </li>
            ))}
          </ol>
        ) : (
          <p className="chart-empty muted">No posts in this range.</p>
        )}
        <Counted
          sentence={`The 5 posts with the most engagement (likes + comments + shares). ${data.counted}`}
        />
      </section>
      <CategoryBreakdown />
      {/* The whole row's width: its five columns do not fit beside another card. */}
      <section className="chart-card wide" aria-labelledby="top-people-title">
        <h2 id="top-people-title">Top people</h2>
        <PeopleTable
          people={data.top_people}
          caption="Top people by mentions"
          dashboard="overview"
          meta={meta}
        />
      </section>
    </div>
  );
}

function Tiles({ data }: { data: OverviewResponse }) {
  const tiles = [
    { label: 'Mentions', figure: data.totals.mentions },
    { label: 'Unique authors', figure: data.totals.unique_authors },
    { label: 'Engagement', figure: data.totals.engagement },
    { label: 'Potential reach', figure: data.totals.reach },
  ];
  return (
    <ul className="tiles" aria-label="Totals against the previous period">
      {tiles.map(({ label, figure }) => {
        // The direction in an arrow, not in a colour: more mentions may be an outage as well as a launch, so a rise
        // is not shown as good nor a fall as bad.
        const arrow =
          figure.change_pct === null || figure.change_pct === 0 ? '' : figure.change_pct > 0 ? '▲ ' : '▼ ';
        return (
          <li key={label} className="tile">
            <span className="tile-label">{label}</span>
            <strong className="tile-value" title={formatWhole(figure.value)}>
              {formatCompact(figure.value)}
            </strong>
            <span className="tile-change">
              {/* The sign of the figure says it to a screen reader already. */}
              {arrow ? <span aria-hidden="true">{arrow}</span> : null}
              {formatChange(figure.change_pct)}{' '}
              <span className="muted">vs {formatCompact(figure.previous)} before</span>
            </span>
          </li>
        );
      })}
      <li className="tile">
        <span className="tile-label">Mentions per day</span>
        <strong className="tile-value">{formatDecimal(data.totals.mentions_per_day)}</strong>
      </li>
    </ul>
  );
}
