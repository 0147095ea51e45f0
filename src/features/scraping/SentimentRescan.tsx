// The sentiment rescan's line on the scraping area: "Rescanning sentiment with model m: 43 % (430,000 of 1,000,000),
// about 4 minutes left" while a new model rescans the corpus (read again every few seconds), and which model scored
// every post once it has finished. Nothing while it is unknown or never needed.
import { useQuery } from '@tanstack/react-query';
import { rescanLine } from '@contract/sentiment-rescan';
import { sentimentRescanQuery } from '@/api/scraping';
import { useApp } from '@/components/use-app';

export function SentimentRescan() {
  const { api } = useApp();
  const status = useQuery(sentimentRescanQuery(api));
  const rescan = status.data?.rescan;
  if (!rescan) return null;
  const running = !rescan.finished_at;
  return (
    <section aria-labelledby="rescan-heading" className="scraping-rescan">
      <h2 id="rescan-heading">Sentiment model</h2>
      <p role="status">{rescanLine(rescan)}</p>
      {running && (
        <progress value={rescan.rescanned} max={Math.max(rescan.total, 1)} aria-labelledby="rescan-heading" />
      )}
    </section>
  );
}
