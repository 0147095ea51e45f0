import { EmptyState, PageFrame } from '../../components/PageFrame';

export function SavedQueriesPage() {
  return (
    <PageFrame
      title="Saved queries"
      description="The queries your workspace tracks, each with its dashboards."
    >
      <EmptyState title="No saved queries yet">
        Saved queries appear here once your workspace creates them.
      </EmptyState>
    </PageFrame>
  );
}
