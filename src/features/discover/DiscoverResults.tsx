// Discover's results: a virtualised list of posts (keyset pages through next_cursor, loaded as the end comes near or
// with "Load more"), the top profiles beside it, and the sentence on exactly what was counted.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Link } from '@tanstack/react-router';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { invalidQueryErrors } from '@/api/saved-queries';
import { discoverQuery, type SearchScope } from '@/api/social';
import { apiProblem, preparingWait } from '@/api/errors';
import { FiguresWait } from '@/components/FiguresWait';
import type { DiscoverProfile } from '@contract/discover';
import { EmptyState } from '@/components/PageFrame';
import { Pending } from '@/components/Pending';
import { PostCard, type DetailLinks } from '@/components/PostCard';
import { platformName } from '@/lib/platforms';
import { termPatterns } from '@/components/query-editor/match-terms';
import { suggestionsFromPosts, type QuerySuggestions } from '@/components/query-editor/query-completion';
import { useApp } from '@/components/use-app';
import { toSearch, type DiscoverState } from './discover-search';

const number = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

export function DiscoverResults({
  workspaceId,
  state,
  scope,
  queryInvalid,
  onSuggestions,
}: {
  workspaceId: string;
  state: DiscoverState;
  scope: SearchScope;
  queryInvalid: boolean;
  onSuggestions: (suggestions: QuerySuggestions) => void;
}) {
  const { api } = useApp();
  const blank = state.query.trim() === '';
  const results = useInfiniteQuery({
    ...discoverQuery(api, workspaceId, { query: state.query, scope, sort: state.sort }),
    enabled: !blank && !queryInvalid,
    placeholderData: keepPreviousData,
  });
  const posts = useMemo(() => results.data?.pages.flatMap((page) => page.posts) ?? [], [results.data]);
  const first = results.data?.pages[0];
  const patterns = useMemo(() => termPatterns(state.query), [state.query]);
  // A post's and a profile's pages keep the search's scope (its query, range and filters) and lead back here.
  const links = useMemo((): DetailLinks => {
    const { sort: _sort, ...scope } = toSearch(state);
    return { workspaceId, search: { ...scope, back: 'discover' } };
  }, [state, workspaceId]);
  useEffect(() => onSuggestions(suggestionsFromPosts(posts)), [posts, onSuggestions]);

  if (blank) {
    return (
      <EmptyState title="Nothing searched yet">
        Type a query above: the count follows as you type, and the matching posts appear here.
      </EmptyState>
    );
  }
  if (queryInvalid) {
    return (
      <EmptyState title="The query has errors">
        Fix the underlined parts above to see matching posts.
      </EmptyState>
    );
  }
  // Figures being prepared: the search asks again after each Retry-After (src/api/errors.ts) and says how far they are.
  const preparing = first ? null : preparingWait(results.failureReason);
  if (preparing) return <FiguresWait wait={preparing} asking={!results.isError} />;
  if (results.isError && !first) return <SearchFailure error={results.error} />;
  if (!first) return <Pending label="Searching…" />;

  return (
    <div className="discover-results" aria-busy={results.isFetching || undefined}>
      <section className="discover-posts" aria-labelledby="discover-posts-title">
        <h2 id="discover-posts-title">Posts</h2>
        <p className="small muted counted">{first.counted}</p>
        {posts.length === 0 ? (
          <EmptyState title="No posts match">
            Try a wider date range, fewer filters, or an OR between words.
          </EmptyState>
        ) : (
          <PostList
            posts={posts}
            timeZone={first.time_zone}
            patterns={patterns}
            links={links}
            hasMore={results.hasNextPage}
            loadingMore={results.isFetchingNextPage}
            loadMore={() => void results.fetchNextPage()}
          />
        )}
        {results.isError ? <SearchFailure error={results.error} /> : null}
      </section>
      <TopProfiles profiles={first.profiles ?? []} links={links} />
    </div>
  );
}

function SearchFailure({ error }: { error: unknown }) {
  const problem = apiProblem(error);
  const queryErrors = invalidQueryErrors(error);
  return (
    <div className="form-error" role="alert">
      {/* The server's sentence says what to do: 429 when to retry, 503 to narrow the range or the query. */}
      <p>{problem.message}</p>
      {queryErrors?.length ? (
        <ul>
          {queryErrors.map((queryError) => (
            <li key={`${queryError.column}:${queryError.message}`}>{queryError.message}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function PostList({
  posts,
  timeZone,
  patterns,
  links,
  hasMore,
  loadingMore,
  loadMore,
}: {
  posts: ReadonlyArray<Parameters<typeof PostCard>[0]['post']>;
  timeZone: string;
  patterns: readonly string[];
  links: DetailLinks;
  hasMore: boolean;
  loadingMore: boolean;
  loadMore: () => void;
}) {
  const list = useRef<HTMLOListElement>(null);
  // Where the list starts on the page: the window scrolls, the virtualizer counts from there.
  const [listTop, setListTop] = useState(0);
  useLayoutEffect(() => {
    if (list.current) setListTop(list.current.getBoundingClientRect().top + window.scrollY);
  }, []);
  const virtualizer = useWindowVirtualizer({
    count: posts.length,
    estimateSize: () => 160,
    overscan: 6,
    scrollMargin: listTop,
  });
  const items = virtualizer.getVirtualItems();
  const last = items.at(-1);
  // Infinite scroll: the next page once the last few posts are drawn.
  useEffect(() => {
    if (last && last.index >= posts.length - 5 && hasMore && !loadingMore) loadMore();
  }, [last, posts.length, hasMore, loadingMore, loadMore]);

  return (
    <>
      <ol
        ref={list}
        className="post-list"
        aria-label={`${posts.length} posts loaded`}
        style={{ height: virtualizer.getTotalSize(), position: 'relative' }}
      >
        {items.map((item) => (
          <li
            key={posts[item.index]!.id}
            data-index={item.index}
            ref={virtualizer.measureElement}
            className="post-list-item"
            style={{ transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` }}
          >
            <PostCard post={posts[item.index]!} timeZone={timeZone} patterns={patterns} links={links} />
          </li>
        ))}
      </ol>
      <div className="list-end">
        {hasMore ? (
          <button type="button" className="button" onClick={loadMore} disabled={loadingMore}>
            {loadingMore ? 'Loading more…' : 'Load more'}
          </button>
        ) : (
          <p className="small muted">All {posts.length} matching posts are listed.</p>
        )}
      </div>
    </>
  );
}

function TopProfiles({ profiles, links }: { profiles: readonly DiscoverProfile[]; links: DetailLinks }) {
  return (
    <aside className="discover-profiles" aria-labelledby="discover-profiles-title">
      <h2 id="discover-profiles-title">Top profiles</h2>
      {profiles.length === 0 ? (
        <p className="muted small">No profiles.</p>
      ) : (
        <ol className="profile-list">
          {profiles.map((profile) => (
            <li key={profile.id}>
              <Link
                to="/workspace/$workspaceId/insight/profile/$profileId"
                params={{ workspaceId: links.workspaceId, profileId: String(profile.id) }}
                search={links.search as never}
                aria-label={`Profile of ${profile.display_name} (@${profile.handle})`}
              >
                <strong>{profile.display_name}</strong>
              </Link>{' '}
              <span className="muted">
                @{profile.handle} · {platformName(profile.platform)}
              </span>
              <div className="small muted">
                {profile.matching_posts} matching {profile.matching_posts === 1 ? 'post' : 'posts'} ·{' '}
                {number.format(profile.engagement)} engagement · {number.format(profile.followers)} followers
              </div>
            </li>
          ))}
        </ol>
      )}
    </aside>
  );
}
