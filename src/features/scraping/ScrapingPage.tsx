import { EmptyState, PageFrame } from '../../components/PageFrame';

/** The internal scraping area (spec §2, loaded lazily), for staff of the internal workspace. */
export function ScrapingPage() {
  return (
    <main className="standalone">
      <PageFrame title="Scraping" description="Internal: collection jobs that feed the corpus.">
        <EmptyState title="No scraping jobs">Collection jobs appear here with their progress.</EmptyState>
      </PageFrame>
    </main>
  );
}
