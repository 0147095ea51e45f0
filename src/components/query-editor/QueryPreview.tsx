// The live preview beside the query editor: the count over the scope (the check's, through QueryStatus: errors in words
// instead when the query has some) and the newest matching posts (discover's first page, a few posts) with the query's
// terms marked. The saved-query form shows it; discover shows its full list instead. Posts are fetched only for a text
// the check found valid, so a query with errors never reaches discover; while a newer text is checked, the previous
// posts stay (marked busy).
import { useEffect, useMemo, type ComponentProps } from 'react';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { discoverQuery, type SearchScope } from '@/api/social';
import { apiProblem, isPreparing } from '@/api/errors';
import { FIGURES_PREPARING_SHORT } from '../FiguresWait';
import { PostCard } from '../PostCard';
import { useApp } from '../use-app';
import { termPatterns } from './match-terms';
import { suggestionsFromPosts, type QuerySuggestions } from './query-completion';
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
  onSuggestions,
  onFix,
}: {
  id: string;
  workspaceId: string;
  /** The text as typed (the check says whether it is current). */
  query: string;
  scope: SearchScope;
  /** Read after the count, e.g. "in the last 30 days". */
  scopeLabel: string;
  check: QueryCheck;
  /** The hashtags, mentions, authors and countries of the posts shown, for the editor's completion. */
  onSuggestions?: (suggestions: QuerySuggestions) => void;
  /** Applies a warning's fix to the text (QueryStatus). */
  onFix?: ComponentProps<typeof QueryStatus>['onFix'];
}) {
  const { api } = useApp();
  const blank = query.trim() === '';
  const errors = check.errors;
  // Known valid: checked, exactly as typed, without errors.
  const searchable = !blank && errors !== undefined && errors.length === 0;
  const posts = useInfiniteQuery({
    ...discoverQuery(api, workspaceId, { query, scope, sort: 'recency' }, PREVIEW_POSTS),
    enabled: searchable,
    placeholderData: keepPreviousData,
  });
  const patterns = useMemo(() => termPatterns(query), [query]);
  const page = posts.data?.pages[0];
  useEffect(() => onSuggestions?.(suggestionsFromPosts(page?.posts ?? [])), [page, onSuggestions]);
  const shown = !blank && (errors === undefined || errors.length === 0);

  let body = null;
  if (!shown) {
    // Blank, or errors: QueryStatus says so.
  } else if (posts.isError && !posts.isPlaceholderData) {
    body = <p className="field-error">Could not load the posts. {apiProblem(posts.error).message}</p>;
  } else if (!page) {
    if (searchable) {
      const preparing = isPreparing(posts.failureReason);
      body = <p className="muted small">{preparing ? FIGURES_PREPARING_SHORT : 'Loading posts…'}</p>;
    }
  } else if (page.posts.length === 0) {
    body = <p className="muted">No posts match in this range.</p>;
  } else {
    body = (
      <>
        <p className="muted small">The newest matching posts:</p>
        <ol className="post-list compact">
          {page.posts.map((post) => (
            <li key={post.id}>
              <PostCard post={post} timeZone={page.time_zone} patterns={patterns} compact />
            </li>
          ))}
        </ol>
      </>
    );
  }

  return (
    <section
      className="query-preview"
      aria-labelledby={`${id}-title`}
      aria-busy={(shown && (!searchable || posts.isFetching)) || undefined}
    >
      <h3 id={`${id}-title`}>Preview</h3>
      <QueryStatus id={`${id}-status`} check={check} query={query} scopeLabel={scopeLabel} onFix={onFix} />
      {body}
    </section>
  );
}
