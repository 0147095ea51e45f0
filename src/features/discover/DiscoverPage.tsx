// Discover: an ad-hoc search of the corpus. The query is checked while it is typed (errors at their column, the count
// in the chosen range); the results follow the address, which is updated once typing rests (replace, not push).
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useSuspenseQuery } from '@tanstack/react-query';
import { workspaceQuery } from '@/api/queries';
import { PageFrame } from '@/components/PageFrame';
import { applyQueryFix } from '@/components/query-editor/diagnostics';
import { QueryEditor } from '@/components/query-editor/QueryEditor';
import { QueryHelp } from '@/components/query-editor/QueryHelp';
import { QueryStatus } from '@/components/query-editor/QueryStatus';
import { NO_SUGGESTIONS, type QuerySuggestions } from '@/components/query-editor/query-completion';
import { useQueryCheck } from '@/components/query-editor/use-query-check';
import { useApp } from '@/components/use-app';
import { DiscoverFilters } from './DiscoverFilters';
import { DiscoverResults } from './DiscoverResults';
import { SaveAsQuery } from './SaveAsQuery';
import { fromSearch, RANGE_LABELS, scopeOf, toSearch, type DiscoverState } from './discover-search';

const route = getRouteApi('/_authed/workspace/$workspaceId/discover');

export function DiscoverPage() {
  const { api } = useApp();
  const { workspaceId } = route.useParams();
  const workspace = useSuspenseQuery(workspaceQuery(api, workspaceId)).data;
  const search = route.useSearch();
  const navigate = route.useNavigate();
  const applied = useMemo(() => fromSearch(search), [search]);

  // What is typed; the address (and so the results) follows once the check's debounce has passed.
  const [draft, setDraft] = useState(applied.query);
  const written = useRef(applied.query);
  useEffect(() => {
    // Back/forward or a link changed the address: show its query.
    if (applied.query !== written.current) {
      written.current = applied.query;
      setDraft(applied.query);
    }
  }, [applied.query]);

  const apply = useCallback(
    (next: Partial<DiscoverState>) => {
      const state = { ...applied, ...next };
      written.current = state.query;
      void navigate({ search: toSearch(state), replace: true });
    },
    [applied, navigate],
  );

  const scope = useMemo(() => scopeOf(applied), [applied]);
  const check = useQueryCheck(workspaceId, draft, scope);
  // Once the typed text is checked (errors known), the address and so the results follow it; a query with errors
  // never reaches discover (it would only answer 400 with the same errors).
  // Whether the query in the address has errors, as far as known (a link may bring one unchecked: discover then says).
  const [appliedHasErrors, setAppliedHasErrors] = useState(false);
  const checkedErrors = check.errors;
  useEffect(() => {
    if (checkedErrors === undefined || draft === written.current) return;
    setAppliedHasErrors(checkedErrors.length > 0);
    apply({ query: draft });
  }, [checkedErrors, draft, apply]);

  const [suggestions, setSuggestions] = useState<QuerySuggestions>(NO_SUGGESTIONS);
  const scopeLabel = `in the ${RANGE_LABELS[applied.range].toLowerCase()}${applied.platforms.length || applied.languages.length ? ', with the filters below' : ''}`;

  return (
    <PageFrame
      title="Discover"
      description="Search posts and people, then save what you find as a query."
      actions={
        <>
          {applied.query.trim() && !appliedHasErrors ? (
            // The same search on the dashboards: its query, range and filters (the address names them alike).
            <Link
              className="button"
              to="/workspace/$workspaceId/insight/overview"
              params={{ workspaceId }}
              search={dashboardSearch(applied)}
            >
              Open in dashboards
            </Link>
          ) : null}
          <SaveAsQuery
            workspaceId={workspaceId}
            privilege={workspace.privilege}
            search={applied}
            check={check}
            draft={draft}
          />
        </>
      }
    >
      <div className="discover-search">
        <div className="query-field">
          {/* The editor is not a form control: the label names it and focuses it when clicked (QueryEditor). */}
          <label id="discover-query-label" className="query-label">
            Query
          </label>
          <QueryEditor
            id="discover-query"
            ariaLabelledBy="discover-query-label"
            ariaDescription="The count and any errors follow below as you type; Ctrl+Enter searches at once."
            value={draft}
            onChange={setDraft}
            errors={check.errors}
            warnings={check.warnings}
            suggestions={suggestions}
            onSubmit={() => apply({ query: draft })}
          />
          <QueryStatus
            id="discover-query-status"
            check={check}
            query={draft}
            scopeLabel={scopeLabel}
            onFix={(fix) => setDraft(applyQueryFix(draft, fix))}
          />
          <QueryHelp />
        </div>
        <DiscoverFilters state={applied} onChange={apply} />
      </div>
      <DiscoverResults
        workspaceId={workspaceId}
        state={applied}
        scope={scope}
        queryInvalid={
          draft === applied.query && check.errors !== undefined ? check.errors.length > 0 : appliedHasErrors
        }
        onSuggestions={setSuggestions}
      />
    </PageFrame>
  );
}

/**
 * Discover's search as the dashboards' address holds it: the ad-hoc query, its range preset and filters (the same
 * names and the same default, the last 30 days).
 */
const dashboardSearch = (state: DiscoverState) => {
  const { q, range, platforms, languages } = toSearch(state);
  return { q, range, platforms, languages };
};
