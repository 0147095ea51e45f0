// Compare: 2 to 5 saved queries side by side over the view's range and filters (POST /social/insights/compare) —
// share of voice over time (stacked, and as percentages), each query's mentions against the previous period, its
// sentiment, platforms and top authors, and the overlap between them. The queries compared live in the address
// (?compare=<id>,<id>…, in order); without it the view's saved query and the next ones are compared. The view's
// refinements (a tag's among them, named "Category › Tag" by the scope bar's chips) apply to every query. Every chart
// element drills down to that query's posts (filtered posts of the saved query, with the view's refinements and the
// element's).
import { useMemo } from 'react';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { keepPreviousData, useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { COMPARE_MAX, COMPARE_MIN, type CompareResponse } from '@contract/insights-compare';
import type { Refine } from '@contract/insights';
import { compareQuery } from '@/api/insights';
import { savedQueriesQuery } from '@/api/saved-queries';
import { EmptyState } from '@/components/PageFrame';
import { useApp } from '@/components/use-app';
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
import { DashboardFrame, InsightBody } from './DashboardFrame';
import { formatChange, formatShare, formatWhole, NOT_RATED_NOTE } from './insight-format';
import { useInsightView } from './insight-view';
import { useReadOnly } from './read-only';
import { CompareShareContext } from './share-target';

const ROUTE = '/_authed/workspace/$workspaceId/insight/compare';

export function ComparePage() {
  const { api } = useApp();
  const { workspaceId, body, scope } = useInsightView();
  const { compare } = useSearch({ from: ROUTE });
  const navigate = useNavigate({ from: '/workspace/$workspaceId/insight/compare' });
  const saved = useSuspenseQuery(savedQueriesQuery(api, workspaceId)).data.saved_queries;

  // The queries named in the address that still exist; else the view's saved query and the newest others.
  const known = new Set(saved.map((q) => q.id));
  const named = compare?.split(',').filter((id) => known.has(id));
  const ids =
    named ??
    [
      ...(scope.savedQueryId && known.has(scope.savedQueryId) ? [scope.savedQueryId] : []),
      ...saved.map((q) => q.id).filter((id) => id !== scope.savedQueryId),
    ].slice(0, COMPARE_MIN);
  const enough = ids.length >= COMPARE_MIN;
  const result = useQuery({
    ...compareQuery(api, {
      workspace_id: workspaceId,
      saved_query_ids: ids,
      filters: body.filters,
      ...(body.refine?.length && { refine: body.refine }),
    }),
    enabled: enough,
    placeholderData: keepPreviousData,
  });
  // What "Share or export…" in the scope bar shares: these queries over this range.
  const shared = enough
    ? { saved_query_ids: ids, filters: body.filters, ...(body.refine?.length && { refine: body.refine }) }
    : null;
  const choose = (next: string[]) =>
    void navigate({ search: (previous) => ({ ...previous, compare: next.join(',') || undefined }) });

  return (
    <CompareShareContext.Provider value={shared}>
      <DashboardFrame
        title="Compare"
        description="Saved queries side by side: share of voice, sentiment, platforms and authors."
        queryPicker={false}
      >
        <fieldset className="choice-group compact compare-picker">
          <legend>Saved queries compared</legend>
          <p className="field-hint choice-hint">
            Choose {COMPARE_MIN} to {COMPARE_MAX}. The range and filters above apply to each.
          </p>
          {saved.map((query) => {
            const checked = ids.includes(query.id);
            return (
              <label key={query.id} className="choice">
                <input
                  type="checkbox"
                  checked={checked}
                  disabled={!checked && ids.length >= COMPARE_MAX}
                  onChange={(event) =>
                    choose(event.target.checked ? [...ids, query.id] : ids.filter((id) => id !== query.id))
                  }
                />
                {query.name}
              </label>
            );
          })}
        </fieldset>
        {enough ? (
          <InsightBody result={result} skeleton={4}>
            {(data) => <Compare data={data} />}
          </InsightBody>
        ) : (
          <EmptyState title="Choose at least two saved queries">
            {saved.length < COMPARE_MIN
              ? 'Compare needs two saved queries or more: save another query first.'
              : 'Check the saved queries to compare above.'}
          </EmptyState>
        )}
      </DashboardFrame>
    </CompareShareContext.Provider>
  );
}

type Bucket = CompareResponse['over_time'][number];
type QueryFigures = CompareResponse['queries'][number];

/** Compare's answer drawn: on its page, and read-only on a shared page or a report (SharedPage.tsx). */
export function Compare({ data }: { data: CompareResponse }) {
  const { drill } = useInsightView();
  // Read-only (shared, or a report): the authors are names, not drill-downs.
  const readOnly = useReadOnly();
  const meta = { timeZone: data.time_zone, range: data.range, counted: data.counted, query: null };
  const names = data.queries.map((q) => q.name);
  const label = (row: Bucket) => bucketLabel(data, row);
  const open = (index: number | undefined, refines: Refine[]) => {
    const query = data.queries[index ?? 0];
    if (query) drill(refines, 'filtered-posts', query.saved_query_id);
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
          { label: 'Saved query', value: (q: QueryFigures) => q.name },
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
          open: (q: QueryFigures) => drill([], 'filtered-posts', q.saved_query_id),
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
          { label: 'Saved query', value: (q: QueryFigures) => q.name },
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
            drill(
              index === undefined ? [] : [{ field: 'sentiment', values: [SENTIMENTS[index]!] }],
              'filtered-posts',
              q.saved_query_id,
            ),
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
        <section key={query.saved_query_id} className="chart-card" aria-labelledby={`compare-authors-${i}`}>
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
                      onClick={() =>
                        drill(
                          [{ field: 'author', values: [author.id] }],
                          'filtered-posts',
                          query.saved_query_id,
                        )
                      }
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
          { label: 'Saved queries', value: (row: (typeof pairRows)[number]) => row.label },
          {
            label: 'Posts matching both',
            value: (row: (typeof pairRows)[number]) => row.posts,
            numeric: true,
            show: (row: (typeof pairRows)[number]) => formatWhole(row.posts),
          },
        ]}
        empty="No post matches two of these queries."
        footer={
          <p className="small muted">
            {formatWhole(data.overlap.posts)} posts match two or more of the compared queries: they count in
            each query&apos;s share of voice.
          </p>
        }
      />
    </div>
  );
}
