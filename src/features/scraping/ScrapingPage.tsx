import { AppHeader } from '../../components/AppHeader';
import { EmptyState, PageFrame } from '../../components/PageFrame';

/**
 * The internal scraping area (spec §2, loaded lazily), for staff (the route's guard turns anyone else away): the
 * signed-in header takes staff to any workspace they belong to, and signs out.
 */
export function ScrapingPage() {
  return (
    <>
      <AppHeader place="scraping" />
      <main className="standalone">
        <PageFrame title="Scraping" description="Internal: collection jobs that feed the corpus.">
          <EmptyState title="No scraping jobs">Collection jobs appear here with their progress.</EmptyState>
        </PageFrame>
      </main>
    </>
  );
}
