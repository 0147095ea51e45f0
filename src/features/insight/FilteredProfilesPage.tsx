// The filtered profiles dashboard: the people behind a chart element, a page at a time, sorted by posts, followers or
// engagement, with a link back to their posts.
import { Link } from '@tanstack/react-router';
import { PROFILE_SORTS, type ProfileSort } from '@contract/insights';
import type { ProfilesResponse } from '@contract/insights-responses';
import { DashboardFrame, InsightBody, useInsight } from './DashboardFrame';
import { useInsightView } from './insight-view';
import { PeopleTable } from './PeopleTable';
import { DEFAULT_SORTS } from './dashboard-query';
import { ExportButton, Pager, SortSelect, usePaging } from './list-paging';

const PROFILE_SORT_LABELS: Record<ProfileSort, string> = {
  mentions: 'Most posts',
  followers: 'Most followers',
  engagement: 'Most engagement',
};

export function FilteredProfilesPage() {
  const paging = usePaging<ProfileSort>(DEFAULT_SORTS['filtered-profiles']);
  const { workspaceId, search } = useInsightView();
  const result = useInsight('filtered-profiles');
  return (
    <DashboardFrame
      title="Filtered profiles"
      description="The people behind a chart element, with their matching posts and engagement."
      actions={<ExportButton list="profiles" sort={paging.sort} />}
    >
      <div className="list-controls">
        <SortSelect
          sorts={PROFILE_SORTS}
          labels={PROFILE_SORT_LABELS}
          value={paging.sort}
          onChange={paging.setSort}
        />
        <Link to="/workspace/$workspaceId/insight/filtered-posts" params={{ workspaceId }} search={search}>
          Their posts
        </Link>
      </div>
      <InsightBody result={result} skeleton={2}>
        {(data: ProfilesResponse) => (
          <>
            <p className="counted small muted">{data.counted}</p>
            <PeopleTable
              people={data.profiles}
              caption="Profiles"
              dashboard="filtered-profiles"
              meta={{ timeZone: data.time_zone, range: data.range, counted: data.counted, query: data.query }}
            />
            <Pager
              page={paging.page}
              shown={data.profiles.length}
              total={data.total}
              nextCursor={data.next_cursor}
              rangeEnd={data.range.to}
              paging={paging}
              noun="profiles"
            />
          </>
        )}
      </InsightBody>
    </DashboardFrame>
  );
}
