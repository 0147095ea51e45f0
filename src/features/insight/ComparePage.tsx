// Compare (POST /social/insights/compare), in one of two modes the page offers ("Compare saved queries | Compare
// tags"), the mode in the address (?mode=tags; none: saved queries) so a reload keeps it:
// - saved queries: 2 to 5 saved queries side by side (?compare=<id>,<id>…, in order; without it the view's saved
//   query and the next ones);
// - tags: 2 to 5 of the workspace's tags side by side (?tags=<id>,<id>…, in order; without it the first two tags)
//   within the view's saved query (?query=, picked here), or every post of the workspace when the view has none.
// The view's range, filters and refinements (a tag's among them, named "Category › Tag" by the scope bar's chips)
// apply to every column. The answer is drawn by CompareAnswer.tsx, the same for both modes.
import { useNavigate, useSearch } from '@tanstack/react-router';
import { keepPreviousData, useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { COMPARE_MIN, type CompareBody, type CompareMode } from '@contract/insights-compare';
import type { CompareView } from '@contract/share-links';
import { tagLabel } from '@contract/tags';
import { compareQuery } from '@/api/insights';
import { savedQueriesQuery } from '@/api/saved-queries';
import { tagCategoriesQuery } from '@/api/tags';
import { EmptyState } from '@/components/PageFrame';
import { useApp } from '@/components/use-app';
import { Compare } from './CompareAnswer';
import { CompareModeChoice, QueriesPicker, TagsPicker, type Choice } from './ComparePickers';
import { DashboardFrame, InsightBody } from './DashboardFrame';
import { useInsightView } from './insight-view';
import { CompareShareContext } from './share-target';

const ROUTE = '/_authed/workspace/$workspaceId/insight/compare';

/** The ids the address names that still exist, in its order; else the defaults (the first ones). */
function chosen(named: string | undefined, known: readonly Choice[], defaults: () => string[]): string[] {
  const ids = new Set(known.map((choice) => choice.id));
  return named?.split(',').filter((id) => ids.has(id)) ?? defaults().slice(0, COMPARE_MIN);
}

export function ComparePage() {
  const { api } = useApp();
  const { workspaceId, body, scope, setScope } = useInsightView();
  const search = useSearch({ from: ROUTE });
  const navigate = useNavigate({ from: '/workspace/$workspaceId/insight/compare' });
  const mode: CompareMode = search.mode === 'tags' ? 'tags' : 'saved_queries';
  const saved = useSuspenseQuery(savedQueriesQuery(api, workspaceId)).data.saved_queries;
  const categories = useQuery({ ...tagCategoriesQuery(api, workspaceId), enabled: mode === 'tags' });

  const queries = saved.map((q) => ({ id: q.id, name: q.name }));
  const tags = (categories.data?.categories ?? []).flatMap((category) =>
    category.tags.map((tag) => ({ id: tag.id, name: tagLabel(category.name, tag.name) })),
  );
  const viewQuery =
    scope.savedQueryId && queries.some((q) => q.id === scope.savedQueryId) ? scope.savedQueryId : null;
  const queryIds = chosen(search.compare, queries, () => [
    ...(viewQuery ? [viewQuery] : []),
    ...queries.map((q) => q.id).filter((id) => id !== viewQuery),
  ]);
  const tagIds = chosen(search.tags, tags, () => tags.map((tag) => tag.id));
  // Tags mode: the saved query they are compared in, or every post (null).
  const within = viewQuery;

  const refine = body.refine?.length ? { refine: body.refine } : {};
  const view: CompareView | null =
    mode === 'tags'
      ? tagIds.length >= COMPARE_MIN
        ? { ...(within && { saved_query_id: within }), tag_ids: tagIds, filters: body.filters, ...refine }
        : null
      : queryIds.length >= COMPARE_MIN
        ? { saved_query_ids: queryIds, filters: body.filters, ...refine }
        : null;
  const request: CompareBody = { workspace_id: workspaceId, ...(view ?? { saved_query_ids: [] }) };
  const result = useQuery({
    ...compareQuery(api, request),
    enabled: view !== null,
    placeholderData: keepPreviousData,
  });
  const go = (next: { mode?: 'tags'; compare?: string; tags?: string }) =>
    void navigate({ search: (previous) => ({ ...previous, ...next }) });

  return (
    // What "Share or export…" in the scope bar shares: these columns over this range.
    <CompareShareContext.Provider value={view}>
      <DashboardFrame
        title="Compare"
        description="Saved queries, or tags, side by side: share of voice, sentiment, platforms and authors."
        queryPicker={false}
      >
        <CompareModeChoice
          mode={mode}
          choose={(next) => go({ mode: next === 'tags' ? 'tags' : undefined })}
        />
        {mode === 'tags' ? (
          <TagsPicker
            queries={queries}
            within={within}
            chooseWithin={(id) => setScope({ savedQueryId: id, q: '' })}
            tags={tags}
            loading={categories.isPending}
            ids={tagIds}
            choose={(next) => go({ tags: next.join(',') || undefined })}
          />
        ) : (
          <QueriesPicker
            queries={queries}
            ids={queryIds}
            choose={(next) => go({ compare: next.join(',') || undefined })}
          />
        )}
        {view ? (
          <InsightBody result={result} skeleton={4}>
            {(data) => <Compare data={data} />}
          </InsightBody>
        ) : (
          <NotEnough mode={mode} queries={queries.length} tags={tags.length} loading={categories.isPending} />
        )}
      </DashboardFrame>
    </CompareShareContext.Provider>
  );
}

/** What the page says while it has fewer than two columns to compare. */
function NotEnough({
  mode,
  queries,
  tags,
  loading,
}: {
  mode: CompareMode;
  queries: number;
  tags: number;
  loading: boolean;
}) {
  if (mode === 'saved_queries') {
    return (
      <EmptyState title="Choose at least two saved queries">
        {queries < COMPARE_MIN
          ? 'Compare needs two saved queries or more: save another query first.'
          : 'Check the saved queries to compare above.'}
      </EmptyState>
    );
  }
  if (loading) return null;
  return (
    <EmptyState title="Choose at least two tags">
      {tags < COMPARE_MIN
        ? 'Comparing tags needs two tags or more: add tags in Settings › Categories first.'
        : 'Check the tags to compare above.'}
    </EmptyState>
  );
}
