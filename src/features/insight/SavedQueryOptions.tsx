// The workspace's saved queries as a <select>'s options, grouped under "Saved queries" (none: no group): the
// dashboards' scope (ScopeBar) and Compare's "Within" (ComparePickers).

export function SavedQueryOptions({ queries }: { queries: ReadonlyArray<{ id: string; name: string }> }) {
  if (!queries.length) return null;
  return (
    <optgroup label="Saved queries">
      {queries.map((query) => (
        <option key={query.id} value={query.id}>
          {query.name}
        </option>
      ))}
    </optgroup>
  );
}
