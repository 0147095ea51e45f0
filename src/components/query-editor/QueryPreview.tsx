// The live preview beside the query editor: the count over the scope (from the check) and the first matching posts
// (discover's first page, a few posts) with the query's terms marked. Saved queries' editor shows it; discover shows
// its full list instead.
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { discoverQuery, type SearchScope } from '../../api/social';
import { apiProblem } from '../../api/workspaces';
import { PostCard } from '../PostCard';
import { useApp } from '../use-app';
import { termPatterns } from './match-terms';
import { QueryStatus } from './QueryStatus';
import type { QueryCheck } from './use-query-check';

const PREVIEW_POSTS = 5;

export function QueryPreview({
  id,
  workspaceId,
  query,
  scope,
  scopeLabel,
  check,
}: {
  id: string;
  workspaceId: string;
  query: string;
  scope: SearchScope;
  scopeLabel: string;
  check: QueryCheck;
}) {
  const { api } = useApp();
  const checked = check.checkedQuery;
  const valid = check.result?.valid === true && checked.trim() !== '';
  const posts = useInfiniteQuery({
    ...discoverQuery(api, workspaceId, { query: checked, scope, sort: 'recency' }, PREVIEW_POSTS),
    enabled: valid,
    placeholderData: keepPreviousData,
  });
  const patterns = useMemo(() => termPatterns(checked), [checked]);
  const page = posts.data?.pages[0];
  return (
    <section className="query-preview" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Preview</h2>
      <QueryStatus id={`${id}-status`} check={check} query={query} scopeLabel={scopeLabel} />
      {posts.isError ? <p className="field-error">{apiProblem(posts.error).message}</p> : null}
      {valid && page ? (
        page.posts.length ? (
          <ol className="post-list compact" aria-busy={posts.isFetching || undefined}>
            {page.posts.map((post) => (
              <li key={post.id}>
                <PostCard post={post} timeZone={page.time_zone} patterns={patterns} compact />
              </li>
            ))}
          </ol>
        ) : (
          <p className="muted">No posts match in this range.</p>
        )
      ) : null}
    </section>
  );
}
