// Compare's answer drawn (POST /social/insights/compare), whichever its mode: share of voice over time (stacked, and
// as percentages), each column's mentions against the previous period, its sentiment, platforms and top authors, and
// the overlap between the columns. A column is a saved query, or a tag within one saved query (`mode`); every chart
// element drills down to that column's posts (filtered posts of its saved query, with the view's refinements, its tag
// and the element's). Drawn on the Compare page (ComparePage.tsx) and read-only on a shared page or a report.
import { useMemo } from 'react';
import type { CompareResponse } from '@contract/insights-compare';
import type { Refine } from '@contract/insights';
import { platformName } from '@/lib/platforms';
import { ChartCard } from './ChartCard';
import {
  bucketLabel,
  colorOf,
  mentionsChart,
  platformRowsOf,
  platformsChart,
  sentimentChart,
  SENTIMENT_LABELS,
  SENTIMENTS,
  shareIn,
  shareOfVoiceChart,
  totalOf,
} from './compare-charts';
import { formatChange, formatShare, formatWhole, NOT_RATED_NOTE } from './insight-format';
import { useInsightView } from './insight-view';
import { useReadOnly } from './read-only';

type Bucket = CompareResponse['over_time'][number];
type QueryFigures = CompareResponse['queries'][number];

/** Compare's answer drawn: on its page, and read-only on a shared page or a report (SharedPage.tsx). */
export function Compare({ data }: { data: CompareResponse }) {
  const { drill } = useInsightView();
  // Read-only (shared, or a report): the authors are names, not drill-downs.
  const readOnly = useReadOnly();
  const meta = { timeZone: data.time_zone, range: data.range, counted: data.counted, query: null };
  const names = data.queries.map((q) => q.name);
  // Tags within one saved query, or saved queries (an older server's answer has no mode).
  const tags = data.mode === 'tags';
  const columnLabel = tags ? 'Tag' : 'Saved query';
  const label = (row: Bucket) => bucketLabel(data, row);
  /** A column's posts: its saved query's, refined to its tag (tags mode), then to `refines`. */
  const drillInto = (column: QueryFigures, refines: Refine[]) =>
    drill(
      column.tag_id ? [{ field: 'tag', values: [column.tag_id] }, ...refines] : refines,
      'filtered-posts',
      column.saved_query_id,
    );
  const open = (index: number | undefined, refines: Refine[]) => {
    const query = data.queries[index ?? 0];
    if (query) drillInto(query, refines);
  };
  const openBucket = (row: Bucket, index?: number) =>
    open(index, [{ field: 'date', bucket: data.bucket, values: [row.start] }]);

  const counts = useMemo(() => shareOfVoiceChart(data, false), [data]);
  const shares = useMemo(() => shareOfVoiceChart(data, true), [data]);
  const totals = useMemo(() => mentionsChart(data), [data]);
  const sentiment = useMemo(() => sentimentChart(data), [data]);
  // Any query with "not rated" posts (absent from an older server's answer): their column and what they mean.
  const unrated = data.queries.some((q) => (q.sentiment.not_rated ?? 0) > 0);
  const platformRows = useMemo(() => platformRowsOf(data), [data]);
  const platforms = useMemo(() => platformsChart(data, platformRows), [data, platformRows]);
  const pairRows = data.overlap.pairs.map((pair) => ({
    ...pair,
    label: `${names[pair.a]} & ${names[pair.b]}`,
  }));

  const perQueryColumns = data.queries.map((query, i) => ({
    label: query.name,
    value: (row: Bucket) => row.mentions[i] ?? 0,
    numeric: true,
    show: (row: Bucket) => formatWhole(row.mentions[i] ?? 0),
  }));
  const bucketColumn = {
    label: data.bucket === 'hour' ? 'Hour' : data.bucket === 'day' ? 'Day' : 'Week',
    value: (row: Bucket) => row.local,
    show: label,
  };
  const bucketDrill = {
    open: (row: Bucket, index?: number) => openBucket(row, index),
    label: (row: Bucket) => `Posts of ${label(row)}`,
    enabled: (row: Bucket) => totalOf(row) > 0,
    series: names,
  };

  return (
    <div className="dashboard-grid">
      <ChartCard
        wide
        title="Share of voice over time"
        dashboard="compare"
        meta={meta}
        rows={data.over_time}
        columns={[
          bucketColumn,
          // A bucket without posts has no share: "no posts" on screen, an empty field in the CSV, a gap in the chart.
          ...data.queries.map((query, i) => ({
            label: `${query.name} (share)`,
            value: (row: Bucket) => shareIn(row, i),
            numeric: true,
            show: (row: Bucket) => {
              const share = shareIn(row, i);
              return share === null ? 'no posts' : formatShare(share);
            },
          })),
        ]}
        chart={{
          config: shares,
          summary: data.queries.map((q) => `${q.name} ${formatShare(q.share)} of the voice`).join(', '),
        }}
        drill={bucketDrill}
      />
      <ChartCard
        wide
        title="Mentions over time, stacked"
        dashboard="compare"
        meta={meta}
        rows={data.over_time}
        columns={[bucketColumn, ...perQueryColumns]}
        chart={{
          config: counts,
          summary: data.queries.map((q) => `${q.name} ${formatWhole(q.mentions.value)}`).join(', '),
        }}
        drill={bucketDrill}
      />
      <ChartCard
        title="Mentions against the previous period"
        dashboard="compare"
        meta={meta}
        rows={data.queries}
        columns={[
          { label: columnLabel, value: (q: QueryFigures) => q.name },
          {
            label: 'Mentions',
            value: (q: QueryFigures) => q.mentions.value,
            numeric: true,
            show: (q: QueryFigures) => formatWhole(q.mentions.value),
          },
          {
            label: 'Previous',
            value: (q: QueryFigures) => q.mentions.previous,
            numeric: true,
            show: (q: QueryFigures) => formatWhole(q.mentions.previous),
          },
          {
            label: 'Change',
            value: (q: QueryFigures) => q.mentions.change_pct,
            numeric: true,
            show: (q: QueryFigures) => formatChange(q.mentions.change_pct),
          },
          {
            label: 'Share of voice',
            value: (q: QueryFigures) => q.share,
            numeric: true,
            show: (q: QueryFigures) => formatShare(q.share),
          },
        ]}
        chart={{
          config: totals,
          summary: data.queries
            .map((q) => `${q.name} ${formatWhole(q.mentions.value)} (${formatChange(q.mentions.change_pct)})`)
            .join(', '),
        }}
        drill={{
          open: (q: QueryFigures) => drillInto(q, []),
          label: (q: QueryFigures) => `Posts of ${q.name}`,
          enabled: (q: QueryFigures) => q.mentions.value > 0,
        }}
      />
      <ChartCard
        title="Sentiment"
        dashboard="compare"
        meta={meta}
        rows={data.queries}
        columns={[
          { label: columnLabel, value: (q: QueryFigures) => q.name },
          ...SENTIMENTS.map((s) => ({
            label: SENTIMENT_LABELS[s],
            value: (q: QueryFigures) => q.sentiment[s],
            numeric: true,
            show: (q: QueryFigures) => formatWhole(q.sentiment[s]),
          })),
          ...(unrated
            ? [
                {
                  label: 'Not rated',
                  value: (q: QueryFigures) => q.sentiment.not_rated ?? 0,
                  numeric: true,
                  show: (q: QueryFigures) => formatWhole(q.sentiment.not_rated ?? 0),
                },
              ]
            : []),
        ]}
        chart={{
          config: sentiment,
          summary: data.queries
            .map(
              (q) =>
                `${q.name}: ${q.sentiment.negative} negative of ` +
                formatWhole(unrated ? q.mentions.value - (q.sentiment.not_rated ?? 0) : q.mentions.value) +
                (unrated ? ' rated' : ''),
            )
            .join(', '),
        }}
        footer={unrated ? <p className="small muted">{NOT_RATED_NOTE}</p> : undefined}
        drill={{
          open: (q: QueryFigures, index?: number) =>
            drillInto(q, index === undefined ? [] : [{ field: 'sentiment', values: [SENTIMENTS[index]!] }]),
          label: (q: QueryFigures) => `Posts of ${q.name}`,
          enabled: (q: QueryFigures) => q.mentions.value > 0,
        }}
      />
      <ChartCard
        wide
        title="Platforms"
        dashboard="compare"
        meta={meta}
        rows={platformRows}
        columns={[
          {
            label: 'Platform',
            value: (row: (typeof platformRows)[number]) => row.platform,
            show: (row: (typeof platformRows)[number]) => platformName(row.platform),
          },
          ...data.queries.map((query, i) => ({
            label: query.name,
            value: (row: (typeof platformRows)[number]) => row.mentions[i] ?? 0,
            numeric: true,
          })),
        ]}
        chart={{
          config: platforms,
          summary: platformRows
            .map((row) => `${platformName(row.platform)} ${row.mentions.join(' / ')}`)
            .join(', '),
        }}
        drill={{
          open: (row: (typeof platformRows)[number], index?: number) =>
            open(index, [{ field: 'platform', values: [row.platform] }]),
          label: (row: (typeof platformRows)[number]) => `Posts on ${platformName(row.platform)}`,
          series: names,
        }}
      />
      {data.queries.map((query, i) => (
        <section
          key={query.tag_id ?? query.saved_query_id}
          className="chart-card"
          aria-labelledby={`compare-authors-${i}`}
        >
          <h2 id={`compare-authors-${i}`}>
            <span className="series-swatch" style={{ background: colorOf(i) }} aria-hidden="true" />
            Top authors: {query.name}
          </h2>
          {query.top_authors.length ? (
            <ol className="compare-authors">
              {query.top_authors.map((author) => (
                <li key={author.id}>
                  {readOnly ? (
                    author.display_name
                  ) : (
                    <button
                      type="button"
                      className="link-button"
                      onClick={() => drillInto(query, [{ field: 'author', values: [author.id] }])}
                    >
                      {author.display_name}
                    </button>
                  )}{' '}
                  <span className="muted small">
                    @{author.handle} · {platformName(author.platform)} · {formatWhole(author.mentions)}{' '}
                    mentions
                  </span>
                </li>
              ))}
            </ol>
          ) : (
            <p className="chart-empty muted">No posts in this range.</p>
          )}
        </section>
      ))}
      <ChartCard
        title="Overlap"
        dashboard="compare"
        meta={meta}
        rows={pairRows}
        columns={[
          { label: tags ? 'Tags' : 'Saved queries', value: (row: (typeof pairRows)[number]) => row.label },
          {
            label: tags ? 'Posts carrying both' : 'Posts matching both',
            value: (row: (typeof pairRows)[number]) => row.posts,
            numeric: true,
            show: (row: (typeof pairRows)[number]) => formatWhole(row.posts),
          },
        ]}
        empty={tags ? 'No post carries two of these tags.' : 'No post matches two of these queries.'}
        footer={
          <p className="small muted">
            {tags
              ? `${formatWhole(data.overlap.posts)} posts carry two or more of the compared tags: they count in ` +
                "each tag's share of voice."
              : `${formatWhole(data.overlap.posts)} posts match two or more of the compared queries: they count in ` +
                "each query's share of voice."}
          </p>
        }
      />
    </div>
  );
}
