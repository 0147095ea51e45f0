// Conversation: what people say (hashtags, mentions, domains, words with their sentiment, emerging words); every bar
// and row drills down to filtered posts.
import { useMemo } from 'react';
import type { ChartConfiguration } from 'chart.js';
import type { ConversationResponse } from '@contract/insights-responses';
import { SpikeDrivers } from './SpikeDrivers';
import { RangeThemes } from './RangeThemes';
import { rescanNote } from '@contract/sentiment-rescan';
import { ChartCard } from './ChartCard';
import { COLORS } from './charts/colors';
import { horizontalBarHeight, horizontalBarOptions } from './charts/bar-labels';
import { DashboardFrame, InsightBody, useInsight } from './DashboardFrame';
import { DASHBOARD_PAGES } from './dashboard-pages';
import { formatDecimal, formatWhole } from './insight-format';
import { useInsightView } from './insight-view';

type Counted = ConversationResponse['hashtags'][number];

export function ConversationPage() {
  const result = useInsight('conversation');
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

export function Conversation({ data }: { data: ConversationResponse }) {
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
            {data.sentiment_rescan && ` ${rescanNote(data.sentiment_rescan)}.`}
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
      <RangeThemes />
      <section className="chart-card wide" aria-labelledby="range-drivers-title">
        <h2 id="range-drivers-title">What drove this range</h2>
        <p className="small muted">
          Every word, hashtag, mention, author, link domain, platform, language and sentiment counted in this
          range and in its baseline; what rose most, by exact counts.
        </p>
        <SpikeDrivers
          prompt="Why this range"
          dashboard="conversation"
          windows={[{ from: data.range.from, to: data.range.to, name: 'against its baseline', refine: [] }]}
        />
      </section>
    </div>
  );
}
