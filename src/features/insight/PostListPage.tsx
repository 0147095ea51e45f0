// The posts dashboards: posts (by engagement, recency or overperformance) and filtered posts (the drill-down target,
// newest first), one page of posts at a time; the list itself is also the profile page's. Owners and managers tag
// several posts of a page at once, or every post of the list (TagPosts.tsx).
import { Link } from '@tanstack/react-router';
import { POST_SORTS, type InsightsBody, type PostSort } from '@contract/insights';
import type { InsightPost, PostsResponse } from '@contract/insights-responses';
import { PostCard } from '@/components/PostCard';
import { termPatterns } from '@/components/query-editor/match-terms';
import { DashboardFrame, InsightBody, useInsight } from './DashboardFrame';
import { formatDecimal } from './insight-format';
import { useInsightView } from './insight-view';
import { useDetailLinks } from './DetailLinks';
import type { BackTarget } from './detail-search';
import { DEFAULT_SORTS } from './dashboard-query';
import { ExportButton, Pager, SortSelect, usePaging } from './list-paging';
import { SelectPost, TagPostsPanel, useTagSelection } from './TagPosts';

const POST_SORT_LABELS: Record<PostSort, string> = {
  engagement: 'Most engagement',
  recency: 'Newest',
  overperformance: 'Above the author’s usual',
};
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
  const { body } = useInsightView();
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
        {(data) => <PostList data={data} body={body} page={paging.page} paging={paging} back={dashboard} />}
      </InsightBody>
    </DashboardFrame>
  );
}

export function PostList({
  data,
  body,
  page,
  paging,
  back,
}: {
  data: PostsResponse;
  /** The list's request (without its page): what tagging every post of the list sends. */
  body: InsightsBody;
  page: number;
  paging: { next: (cursor: string, end: string) => void; first: () => void };
  /** The page the posts' and authors' links return to. */
  back: BackTarget;
}) {
  const patterns = termPatterns(data.query ?? '');
  const links = useDetailLinks(back);
  const selection = useTagSelection(data.posts);
  return (
    <>
      <p className="counted small muted">{data.counted}</p>
      <TagPostsPanel selection={selection} posts={data.posts} list={{ body, total: data.total }} />
      {data.posts.length ? (
        <ol className="post-list static" aria-label={`${data.posts.length} posts on this page`}>
          {data.posts.map((post, index) => (
            <li key={post.id} className="post-list-item">
              <SelectPost selection={selection} post={post} place={index + 1} />
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
  <PostListPage dashboard="posts" title="Posts" description="The posts behind the numbers." />
);

export const FilteredPostsPage = () => (
  <PostListPage
    dashboard="filtered-posts"
    title="Filtered posts"
    description="The posts behind a chart element: each refinement is a chip above, which you can switch or remove."
  />
);
