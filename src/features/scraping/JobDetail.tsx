// A scraping job's runs: pick a run, read its progress, its log (times in the reader's zone, named) and its refused
// items, all read again every few seconds while open.
import { useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { runLogQuery, runRefusalsQuery, scrapeJobQuery } from '@/api/scraping';
import { FormError } from '@/components/Field';
import { useApp } from '@/components/use-app';
import { youtubeUnitsPerRun, type ScrapeJob, type ScrapeRun } from '@contract/scraping';
import { logTime, progressText, RUN_STATUS_TEXT, when } from './scraping-format';

export function JobDetail({ jobId, onClose }: { jobId: string; onClose: () => void }) {
  const { api } = useApp();
  const detail = useQuery(scrapeJobQuery(api, jobId));
  const [runId, setRunId] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // Opening a job's runs takes focus to them (they appear below the list).
  useEffect(() => heading.current?.focus(), [detail.isPending]);
  if (detail.isPending) return <p role="status">Loading the job…</p>;
  if (detail.isError) return <FormError message="The job could not be loaded." />;
  const run = detail.data.runs.find((r) => r.id === runId) ?? detail.data.runs[0];
  return (
    <section aria-labelledby="detail-heading" className="scraping-detail">
      <div className="scraping-detail-head">
        <h2 id="detail-heading" ref={heading} tabIndex={-1}>
          {detail.data.job.name}: runs
        </h2>
        <button type="button" className="button small" onClick={onClose}>
          Close
        </button>
      </div>
      <QuotaNote job={detail.data.job} />
      {detail.data.runs.length === 0 ? (
        <p>No run yet: the job starts within a few seconds.</p>
      ) : (
        <>
          <div className="field">
            <label htmlFor="run-select">Run</label>
            <select
              id="run-select"
              className="input"
              value={run?.id}
              onChange={(e) => setRunId(e.target.value)}
            >
              {detail.data.runs.map((r) => (
                <option key={r.id} value={r.id}>
                  {when(r.queued_at)} — {RUN_STATUS_TEXT[r.status]}
                </option>
              ))}
            </select>
          </div>
          {run && <RunView run={run} />}
        </>
      )}
    </section>
  );
}

/** A YouTube job's most units a run, before it runs. */
function QuotaNote({ job }: { job: ScrapeJob }) {
  const params = job.params;
  if (params.source !== 'youtube_search' && params.source !== 'youtube_channel') return null;
  return (
    <p className="field-hint">
      Each run spends at most {youtubeUnitsPerRun(params).toLocaleString('en-US')} units of its credentials’
      daily quota; it waits for the next day (midnight Pacific time) rather than pass the quota.
    </p>
  );
}

function RunView({ run }: { run: ScrapeRun }) {
  const { api } = useApp();
  const log = useQuery(runLogQuery(api, run.id));
  const refused = useQuery(runRefusalsQuery(api, run.id));
  return (
    <div className="scraping-run">
      <p>
        <strong>{RUN_STATUS_TEXT[run.status]}</strong> · {progressText(run)}
        {run.started_at ? ` · started ${when(run.started_at)}` : ''}
        {run.finished_at ? ` · finished ${when(run.finished_at)}` : ''}
      </p>
      {run.error && <p className="form-error">{run.error}</p>}
      <h3>Log</h3>
      {log.isPending ? (
        <p role="status">Loading the log…</p>
      ) : log.isError ? (
        <FormError message="The log could not be loaded." />
      ) : log.data.entries.length === 0 ? (
        <p>Nothing logged yet.</p>
      ) : (
        <ol className="scraping-log" aria-label="Run log" tabIndex={0}>
          {log.data.entries.map((e) => (
            <li key={e.id} data-level={e.level}>
              <time dateTime={new Date(e.at * 1000).toISOString()}>{logTime(e.at)}</time>{' '}
              {e.level !== 'info' && <span className="scraping-level">{e.level}: </span>}
              {e.message}
            </li>
          ))}
        </ol>
      )}
      <h3>Refused items{refused.data ? ` (${refused.data.total})` : ''}</h3>
      {refused.isPending ? (
        <p role="status">Loading the refused items…</p>
      ) : refused.isError ? (
        <FormError message="The refused items could not be loaded." />
      ) : refused.data.items.length === 0 ? (
        <p>None: every item was taken.</p>
      ) : (
        <div className="scraping-scroll">
          <table className="scraping-table" aria-label="Refused items">
            <thead>
              <tr>
                <th scope="col">Item</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {refused.data.items.map((item) => (
                <tr key={item.id}>
                  <td className="scraping-ref">{item.ref}</td>
                  <td>{item.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {refused.data.total > refused.data.items.length && (
            <p>
              The first {refused.data.items.length} of {refused.data.total} are shown.
            </p>
          )}
        </div>
      )}
    </div>
  );
}
