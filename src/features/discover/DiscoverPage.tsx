import { EmptyState, PageFrame } from '../../components/PageFrame';

export function DiscoverPage() {
  return (
    <PageFrame title="Discover" description="Search posts and people, then save what you find as a query.">
      <EmptyState title="Nothing searched yet">Results of a search appear here.</EmptyState>
    </PageFrame>
  );
}
