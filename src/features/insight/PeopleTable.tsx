// People as a table: who they are (name, handle, platform, verified, country), followers, their matching posts
// ("mentions") and the engagement of those posts. A name opens the person's page; each row opens their posts in the
// view (filtered posts with an author refinement); CSV of the rows.
import type { InsightPerson } from '@contract/insights-responses';
import { platformName } from '@/lib/platforms';
import { ChartCard } from './ChartCard';
import type { CsvMeta } from './csv';
import { formatCompact, formatWhole } from './insight-format';
import { useInsightView } from './insight-view';
import { ProfileLink } from './DetailLinks';
import type { BackTarget } from './detail-search';

export function PeopleTable({
  people,
  caption,
  dashboard,
  meta,
  title,
}: {
  people: readonly InsightPerson[];
  caption: string;
  /** The dashboard it is on: the CSV's name and where the people's links return to. */
  dashboard: 'overview' | 'people' | 'filtered-profiles';
  meta: Omit<CsvMeta, 'title'>;
  /** With a title the table is a card of its own; without, it sits in the caller's card. */
  title?: string;
}) {
  const { drill } = useInsightView();
  return (
    <ChartCard
      title={title ?? caption}
      bare={!title}
      dashboard={dashboard}
      meta={meta}
      rows={people}
      empty="No one posted in this range."
      columns={[
        {
          label: 'Person',
          value: (person) => person.handle,
          show: (person) => (
            <span className="person">
              <ProfileLink profile={person} back={dashboard satisfies BackTarget} />{' '}
              <span className="muted">
                @{person.handle} · {platformName(person.platform)}
                {person.verified ? ' · verified' : ''}
                {person.country ? ` · ${person.country}` : ''}
              </span>
            </span>
          ),
        },
        { label: 'Platform', value: (person) => person.platform, csvOnly: true },
        {
          label: 'Followers',
          value: (person) => person.followers,
          numeric: true,
          show: (person) => (
            <span title={formatWhole(person.followers)}>{formatCompact(person.followers)}</span>
          ),
        },
        {
          label: 'Mentions',
          value: (person) => person.mentions,
          numeric: true,
          show: (p) => formatWhole(p.mentions),
        },
        {
          label: 'Engagement',
          value: (person) => person.engagement,
          numeric: true,
          show: (person) => formatWhole(person.engagement),
        },
      ]}
      drill={{
        open: (person) => drill([{ field: 'author', values: [person.id] }]),
        label: (person) => `Posts by @${person.handle}`,
      }}
    />
  );
}
