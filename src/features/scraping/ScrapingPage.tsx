// The internal scraping area (spec §2), for staff (the route's guard turns anyone else away; the server
// answers 403 to anyone else too): collection jobs with their status, progress and next run, read again every few
// seconds; a form to create and edit a job with each source's parameters validated; a run's log and refused items;
// upload of a corpus file with its progress; corpus totals per platform and day (CorpusTotals.tsx), a job's runs
// (JobDetail.tsx), the job form (JobForm.tsx).
import { useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AppHeader } from '@/components/AppHeader';
import { EmptyState, PageFrame } from '@/components/PageFrame';
import { FormError } from '@/components/Field';
import { useApp } from '@/components/use-app';
import { jobAction, scrapeJobsQuery, uploadCorpusFile } from '@/api/scraping';
import type { ScrapeJob } from '@contract/scraping';
import { CorpusTotals, useRefreshWhenRunsFinish } from './CorpusTotals';
import { SentimentRescan } from './SentimentRescan';
import { CredentialsPanel } from './CredentialsPanel';
import { JobDetail } from './JobDetail';
import { isOpenRun, progressText, SOURCE_NAMES, statusText, when } from './scraping-format';
import { JobForm } from './JobForm';
import './scraping.css';

export function ScrapingPage() {
  const { api } = useApp();
  const jobs = useQuery(scrapeJobsQuery(api));
  useRefreshWhenRunsFinish(jobs.data?.jobs);
  const [editing, setEditing] = useState<ScrapeJob | 'new' | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const newJobButton = useRef<HTMLButtonElement>(null);
  // Closing the form or a job's runs puts focus back where the person was: the New job button.
  const closeForm = () => {
    setEditing(null);
    newJobButton.current?.focus();
  };
  const closeDetail = () => {
    setSelected(null);
    newJobButton.current?.focus();
  };
  return (
    <>
      <AppHeader place="scraping" />
      <main className="standalone scraping">
        <PageFrame
          title="Scraping"
          description="Internal: collection jobs that feed the corpus."
          actions={
            <button
              ref={newJobButton}
              type="button"
              className="button primary"
              onClick={() => setEditing('new')}
              aria-expanded={editing !== null}
            >
              New job
            </button>
          }
        >
          {editing && (
            <JobForm
              key={editing === 'new' ? 'new' : editing.id}
              job={editing === 'new' ? null : editing}
              onClose={closeForm}
            />
          )}
          <UploadPanel />
          <section aria-labelledby="jobs-heading">
            <h2 id="jobs-heading">Jobs</h2>
            {jobs.isPending ? (
              <p role="status">Loading jobs…</p>
            ) : jobs.isError ? (
              <FormError message="The jobs could not be loaded; trying again every few seconds." />
            ) : jobs.data.jobs.length === 0 ? (
              <EmptyState title="No scraping jobs">
                Create a job or upload a file to collect posts.
              </EmptyState>
            ) : (
              <div className="scraping-scroll" tabIndex={0} role="group" aria-labelledby="jobs-heading">
                <table className="scraping-table scraping-jobs">
                  <thead>
                    <tr>
                      <th scope="col">Job</th>
                      <th scope="col">Source</th>
                      <th scope="col">Status</th>
                      <th scope="col">Progress</th>
                      <th scope="col">Next run</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {jobs.data.jobs.map((job) => (
                      <JobRow
                        key={job.id}
                        job={job}
                        onOpen={() => setSelected(job.id)}
                        onEdit={() => setEditing(job)}
                      />
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
          {selected && <JobDetail key={selected} jobId={selected} onClose={closeDetail} />}
          <CredentialsPanel />
          <CorpusTotals />
          <SentimentRescan />
        </PageFrame>
      </main>
    </>
  );
}

function JobRow({ job, onOpen, onEdit }: { job: ScrapeJob; onOpen: () => void; onEdit: () => void }) {
  const { api } = useApp();
  const client = useQueryClient();
  const action = useMutation({
    mutationFn: (name: 'run' | 'pause' | 'resume' | 'cancel') => jobAction(api, job.id, name),
    onSettled: () => client.invalidateQueries({ queryKey: ['scraping'] }),
  });
  const open = isOpenRun(job.last_run);
  return (
    <tr>
      <td>
        <button
          type="button"
          className="link-button"
          onClick={onOpen}
          aria-label={`${job.name}: runs and log`}
        >
          {job.name}
        </button>
      </td>
      <td>
        {SOURCE_NAMES[job.source]}
        {job.every_minutes ? ` · every ${job.every_minutes} min` : ' · once'}
      </td>
      <td data-status={job.last_run?.status ?? 'queued'}>{statusText(job)}</td>
      <td>{progressText(job.last_run)}</td>
      <td>{when(job.next_run_at)}</td>
      <td>
        <div className="scraping-actions">
          {job.state === 'active' && !open && (
            <button
              type="button"
              className="button small"
              disabled={action.isPending}
              aria-label={`Run now ${job.name}`}
              onClick={() => action.mutate('run')}
            >
              Run now
            </button>
          )}
          {job.state === 'active' && (open || job.every_minutes !== null) && (
            <button
              type="button"
              className="button small"
              disabled={action.isPending}
              aria-label={`Pause ${job.name}`}
              onClick={() => action.mutate('pause')}
            >
              Pause
            </button>
          )}
          {job.state === 'paused' && (
            <button
              type="button"
              className="button small"
              disabled={action.isPending}
              aria-label={`Resume ${job.name}`}
              onClick={() => action.mutate('resume')}
            >
              Resume
            </button>
          )}
          {job.state !== 'cancelled' && job.source !== 'upload' && (
            <button type="button" className="button small" aria-label={`Edit ${job.name}`} onClick={onEdit}>
              Edit
            </button>
          )}
          {job.state !== 'cancelled' && (
            <button
              type="button"
              className="button small"
              disabled={action.isPending}
              aria-label={`Cancel ${job.name}`}
              onClick={() => action.mutate('cancel')}
            >
              Cancel
            </button>
          )}
          {action.isError && (
            <span className="field-error" role="alert">
              {action.error.message}
            </span>
          )}
        </div>
      </td>
    </tr>
  );
}

function UploadPanel() {
  const { api, config } = useApp();
  const client = useQueryClient();
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  /** The file of a failed upload, sent again by "Try again". */
  const [failed, setFailed] = useState<File | null>(null);
  const send = async (file: File | undefined) => {
    if (!file) return;
    setError(null);
    setDone(null);
    setFailed(null);
    setProgress(0);
    try {
      const job = await uploadCorpusFile(api, config.VITE_API_BASE_URL, file, setProgress);
      setDone(`“${job.name}” was uploaded; its import is in the jobs below.`);
      await client.invalidateQueries({ queryKey: ['scraping'] });
    } catch (e) {
      setError((e as Error).message);
      setFailed(file);
    } finally {
      setProgress(null);
    }
  };
  return (
    <section aria-labelledby="upload-heading" className="scraping-upload">
      <h2 id="upload-heading">Upload a corpus file</h2>
      <div className="field">
        <label htmlFor="upload-file">Corpus file</label>
        <p id="upload-file-hint" className="field-hint">
          NDJSON or CSV in the corpus format (docs/corpus-format.md); it is imported as soon as it arrives.
        </p>
        <input
          id="upload-file"
          type="file"
          accept=".ndjson,.jsonl,.json,.csv"
          aria-describedby="upload-file-hint"
          disabled={progress !== null}
          onChange={(e) => {
            const file = e.target.files?.[0];
            // The same file chosen again (after fixing it) must fire another change.
            e.target.value = '';
            void send(file);
          }}
        />
      </div>
      {progress !== null && (
        <div className="scraping-progress">
          <progress max={1} value={progress} aria-label="Upload progress" />
          <span role="status">
            {progress < 1 ? `Uploading… ${Math.round(progress * 100)}%` : 'Uploaded; saving…'}
          </span>
        </div>
      )}
      {done && <p role="status">{done}</p>}
      <FormError message={error} />
      {failed && (
        <button type="button" className="button" onClick={() => void send(failed)}>
          Try again
        </button>
      )}
    </section>
  );
}
