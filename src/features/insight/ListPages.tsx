// The paged lists: posts (by engagement, recency or overperformance), filtered posts (the drill-down target, newest
// first) and filtered profiles. A page is a keyset cursor in the address, with the range's end pinned, so a copied
// link opens the same page and back returns to the one before. The whole list (up to 100,000 rows) downloads as a
// CSV the server streams.
import { useState } from 'react';
import { Link, useSearch } from '@tanstack/react-router';
import { POST_SORTS, PROFILE_SORTS, type PostSort, type ProfileSort } from '@contract/insights';
import type { InsightPost, PostsResponse, ProfilesResponse } from '@contract/insights-responses';
import { apiProblem } from '@/api/errors';
import { PostCard } from '@/components/PostCard';
import { termPatterns } from '@/components/query-editor/match-terms';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import { saveFile } from '@/lib/save-file';
import { DashboardFrame, InsightBody, useInsight } from './DashboardFrame';
import { formatDecimal, formatWhole } from './insight-format';
import { useInsightView, useSearchUpdate } from './insight-view';
import { PeopleTable } from './PeopleTable';
import { useDetailLinks } from './DetailLinks';
import type { BackTarget } from './detail-search';
import { DEFAULT_SORTS, LIST_PAGE_SIZE } from './dashboard-query';


const POST_SORT_LABELS: Record<PostSort, string> = {
  engagement: 'Most engagement',
  recency: 'Newest',
  overperformance: 'Above the author’s usual',
};
const PROFILE_SORT_LABELS: Record<ProfileSort, string> = {
  mentions: 'Most posts',
  followers: 'Most followers',
  engagement: 'Most engagement',
};

interface ListSearch {
  sort?: string;
  cursor?: string;
  page?: string;
}

export function usePaging<S extends string>(defaultSort: S) {
  const search = useSearch({ strict: false }) as ListSearch;
  const update = useSearchUpdate();
  const sort = (search.sort as S | undefined) ?? defaultSort;
  const page = search.cursor ? Number(search.page ?? 2) : 1;
  return {
    sort,
    cursor: search.cursor,
    page,
    setSort: (next: S) =>
      update((previous) => ({
        ...previous,
        sort: next === defaultSort ? undefined : next,
        cursor: undefined,
        page: undefined,
      })),
    /** The next page: its cursor, and the range's end pinned to the first page's. */
    next: (cursor: string, rangeEnd: string) =>
      update((previous) => ({
        ...previous,
        cursor,
        page: String(page + 1),
        ...(previous.range === 'custom' ? {} : { end: rangeEnd }),
      })),
    first: () => update((previous) => ({ ...previous, cursor: undefined, page: undefined })),
  };
}

export function SortSelect<S extends string>({
  sorts,
  labels,
  value,
  onChange,
}: {
  sorts: readonly S[];
  labels: Record<S, string>;
  value: S;
  onChange: (sort: S) => void;
}) {
  return (
    <div className="field inline">
      <label htmlFor="list-sort">Sort</label>
      <select
        id="list-sort"
        className="input compact"
        value={value}
        onChange={(event) => onChange(event.target.value as S)}
      >
        {sorts.map((sort) => (
          <option key={sort} value={sort}>
            {labels[sort]}
          </option>
        ))}
      </select>
    </div>
  );
}

function Pager({
  page,
  shown,
  total,
  nextCursor,
  rangeEnd,
  paging,
  noun,
}: {
  page: number;
  shown: number;
  total: number;
  nextCursor: string | null;
  rangeEnd: string;
  paging: { next: (cursor: string, end: string) => void; first: () => void };
  noun: string;
}) {
  const start = (page - 1) * LIST_PAGE_SIZE + 1;
  return (
    <nav className="pager" aria-label={`${noun} pages`}>
      <span className="small muted">
        {shown
          ? `${formatWhole(start)}–${formatWhole(start + shown - 1)} of ${formatWhole(total)} ${noun}`
          : ''}
      </span>
      {page > 1 ? (
        <button type="button" className="button small" onClick={paging.first}>
          First page
        </button>
      ) : null}
      {nextCursor ? (
        <button type="button" className="button small" onClick={() => paging.next(nextCursor, rangeEnd)}>
          Next page
        </button>
      ) : null}
    </nav>
  );
}

/** Downloads the whole list as the server streams it (scope, filters, refinements and sort as shown). */
function ExportButton({ list, sort }: { list: 'posts' | 'profiles'; sort: string }) {
  const { api } = useApp();
  const { body } = useInsightView();
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      const file = await api.downloadSocial(
        `insights/export/${list}`,
        { ...body, sort },
        `murmur-${list}.csv`,
      );
      saveFile(file.name, file.blob);
    } catch (error) {
      showToast('error', `The export failed: ${apiProblem(error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="button" onClick={() => void download()} disabled={busy} aria-busy={busy}>
      {busy ? 'Preparing the CSV…' : `Download all ${list} (CSV)`}
    </button>
  );
}

function PostListPage({
  dashboard,
  title,
  description,
}: {
  dashboard: 'posts' | 'filtered-posts';
  title: string;
  description: string;
}) {
  const paging = usePaging<PostSort>(DEFAULT_SORTS[dashboard]);
  const result = useInsight(dashboard);
  return (
    <DashboardFrame
      title={title}
      description={description}
      actions={<ExportButton list="posts" sort={paging.sort} />}
    >
      <div className="list-controls">
        <SortSelect
          sorts={POST_SORTS}
          labels={POST_SORT_LABELS}
          value={paging.sort}
          onChange={paging.setSort}
        />
        {dashboard === 'filtered-posts' ? <ProfilesLink /> : null}
      </div>
      <InsightBody result={result} skeleton={3}>
        {(data) => <PostList data={data} page={paging.page} paging={paging} back={dashboard} />}
      </InsightBody>
    </DashboardFrame>
  );
}

export function PostList({
  data,
  page,
  paging,
  back,
}: {
  data: PostsResponse;
  page: number;
  paging: { next: (cursor: string, end: string) => void; first: () => void };
  /** The page the posts' and authors' links return to. */
  back: BackTarget;
}) {
  const patterns = termPatterns(data.query ?? '');
  const links = useDetailLinks(back);
  return (
    <>
      <p className="counted small muted">{data.counted}</p>
      {data.posts.length ? (
        <ol className="post-list static" aria-label={`${data.posts.length} posts on this page`}>
          {data.posts.map((post) => (
            <li key={post.id} className="post-list-item">
              <PostCard post={post} timeZone={data.time_zone} patterns={patterns} links={links} />
              {post.overperformance !== null ? <Overperformance post={post} /> : null}
            </li>
          ))}
        </ol>
      ) : (
        <p className="chart-empty muted">No posts match. Remove a refinement or widen the range.</p>
      )}
      <Pager
        page={page}
        shown={data.posts.length}
        total={data.total}
        nextCursor={data.next_cursor}
        rangeEnd={data.range.to}
        paging={paging}
        noun="posts"
      />
    </>
  );
}

const Overperformance = ({ post }: { post: InsightPost }) => (
  <p className="small muted overperformance">
    {formatDecimal(post.overperformance)} × the author’s average engagement in this range
  </p>
);

/** From filtered posts to the authors of the same posts, and back. */
function ProfilesLink() {
  const { workspaceId, search } = useInsightView();
  return (
    <Link to="/workspace/$workspaceId/insight/filtered-profiles" params={{ workspaceId }} search={search}>
      Who posted these
    </Link>
  );
}

export const PostsPage = () => (
  <PostListPage
    dashboard="posts"
    title="Posts"
    description="The posts behind the numbers."
  />
);

export const FilteredPostsPage = () => (
  <PostListPage
    dashboard="filtered-posts"
    title="Filtered posts"
    description="The posts behind a chart element: each refinement is a chip above, which you can switch or remove."
  />
);

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
