// People: who posts the most, with the most followers or engagement (a leaderboard per tab); every row drills down
// to filtered posts.
import { Link, useSearch } from '@tanstack/react-router';
import { PROFILE_SORTS, type ProfileSort } from '@contract/insights';
import { DashboardFrame, InsightBody, useInsight } from './DashboardFrame';
import { DASHBOARD_PAGES } from './dashboard-pages';
import { formatDecimal, formatWhole } from './insight-format';
import { useInsightView, useSearchUpdate } from './insight-view';
import { PeopleTable } from './PeopleTable';

const PEOPLE_TABS: Record<ProfileSort, string> = {
  mentions: 'Most posts',
  followers: 'Most followers',
  engagement: 'Most engagement',
};

export function PeoplePage() {
  const result = useInsight('people');
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
