// The corpus totals of the scraping area: posts per platform and UTC day (last 14 days) and in all. They change only
// when a run writes posts, so they are read when the screen opens and again whenever the job list shows a run that
// has finished since it was last read (and after an upload or a job action), not on a timer.
import { useEffect, useLayoutEffect, useRef } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { figuresWait, preparingWait } from '@/api/errors';
import { corpusTotalsQuery } from '@/api/scraping';
import { FiguresWait } from '@/components/FiguresWait';
import { EmptyState } from '@/components/PageFrame';
import { FormError } from '@/components/Field';
import { useApp } from '@/components/use-app';
import type { CorpusTotals as Totals, ScrapeJob } from '@contract/scraping';
import { formatShortDay } from '@/lib/date-time';
import { platformName } from '@/lib/platforms';
import { isOpenRun } from './scraping-format';

/** Reads the totals, and a finished job's runs, again when a run finishes (seen on the live job list). */
export function useRefreshWhenRunsFinish(jobs: ScrapeJob[] | undefined) {
  const client = useQueryClient();
  /** Per job, the id of its last finished run as last seen; null while it has none. */
  const seen = useRef<Map<string, string | null> | null>(null);
  useEffect(() => {
    if (!jobs) return;
    const now = new Map(
      jobs.map((job) => [job.id, job.last_run && !isOpenRun(job.last_run) ? job.last_run.id : null]),
    );
    const before = seen.current;
    seen.current = now;
    // The first list arrives with the totals of the same moment.
    if (!before) return;
    const finished = [...now].filter(([id, run]) => run !== null && before.get(id) !== run).map(([id]) => id);
    if (finished.length === 0) return;
    void client.invalidateQueries({ queryKey: ['scraping', 'totals'] });
    for (const id of finished) void client.invalidateQueries({ queryKey: ['scraping', 'jobs', id] });
  }, [jobs, client]);
}

export function CorpusTotals() {
  const { api } = useApp();
  const totals = useQuery(corpusTotalsQuery(api));
  // Figures being prepared: asked again after each Retry-After (src/api/errors.ts), their progress shown meanwhile.
  const preparing = totals.data ? null : preparingWait(totals.failureReason);
  return (
    <section aria-labelledby="totals-heading">
      <h2 id="totals-heading">Corpus: posts per platform and day (UTC, last 14 days)</h2>
      {preparing ? (
        <FiguresWait wait={preparing} asking={!totals.isError} />
      ) : totals.isPending ? (
        <p role="status">Loading the totals…</p>
      ) : totals.isError ? (
        // Figures unavailable: the server's sentence says why.
        <FormError message={figuresWait(totals.error)?.message ?? 'The corpus totals could not be loaded.'} />
      ) : totals.data.all_time.length === 0 ? (
        <EmptyState title="The corpus is empty">Posts collected or uploaded are counted here.</EmptyState>
      ) : (
        <TotalsTable data={totals.data} />
      )}
    </section>
  );
}

/**
 * The table itself: a column per UTC day ("5 Nov"), a row per platform. Where it is wider than its frame, the frame
 * opens scrolled to its end, so today's column and All time are in view (the platform column stays at the left); the
 * earlier days are a scroll (or the arrow keys, once the frame is focused) away.
 */
export function TotalsTable({ data: { days, platforms, all_time } }: { data: Totals }) {
  const frame = useRef<HTMLDivElement>(null);
  const lastDay = days.at(-1);
  useLayoutEffect(() => {
    const element = frame.current;
    if (element) element.scrollLeft = element.scrollWidth - element.clientWidth;
  }, [lastDay]);
  return (
    <div ref={frame} className="scraping-scroll" tabIndex={0} role="group" aria-labelledby="totals-heading">
      <table className="scraping-table scraping-totals">
        <thead>
          <tr>
            <th scope="col">Platform</th>
            {days.map((d) => (
              <th scope="col" key={d}>
                <time dateTime={d}>{formatShortDay(d, 'UTC')}</time>
              </th>
            ))}
            <th scope="col">All time</th>
          </tr>
        </thead>
        <tbody>
          {all_time.map(({ platform, posts }) => (
            <tr key={platform}>
              <th scope="row">{platformName(platform)}</th>
              {(platforms.find((p) => p.platform === platform)?.posts ?? days.map(() => 0)).map((n, i) => (
                <td key={days[i]}>{n.toLocaleString()}</td>
              ))}
              <td>{posts.toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
