// The internal scraping area (spec §2, issue 19), for staff (the route's guard turns anyone else away; the server
// answers 403 to anyone else too): collection jobs with their status, progress and next run, read again every few
// seconds; a form to create and edit a job with each source's parameters validated; a run's log and refused items;
// upload of a corpus file with its progress; corpus totals per platform and day (CorpusTotals.tsx), a job's runs
// (JobDetail.tsx).
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AppHeader } from '../../components/AppHeader';
import { EmptyState, PageFrame } from '../../components/PageFrame';
import { FormError } from '../../components/Field';
import { useApp } from '../../components/use-app';
import {
  createJob,
  jobAction,
  scrapeJobsQuery,
  updateJob,
  uploadCorpusFile,
  type JobInput,
} from '../../api/scraping';
import {
  createScrapeJobBodySchema,
  MAX_PAGES_LIMIT,
  type FormSourceParams,
  type ScrapeJob,
} from '../../contract/scraping';
import { CorpusTotals, useRefreshWhenRunsFinish } from './CorpusTotals';
import { JobDetail } from './JobDetail';
import { isOpenRun, progressText, SOURCE_NAMES, statusText, when } from './scraping-format';
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
          <CorpusTotals />
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

const EMPTY_PARAMS: Record<FormSourceParams['source'], FormSourceParams> = {
  mastodon_hashtag: { source: 'mastodon_hashtag', instance: 'https://mastodon.social', hashtag: '' },
  mastodon_account: { source: 'mastodon_account', instance: 'https://mastodon.social', account: '' },
  bluesky_search: { source: 'bluesky_search', query: '' },
  feed: { source: 'feed', url: '' },
};

function JobForm({ job, onClose }: { job: ScrapeJob | null; onClose: () => void }) {
  const { api } = useApp();
  const client = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const [name, setName] = useState(job?.name ?? '');
  const [params, setParams] = useState<FormSourceParams>(
    job && job.params.source !== 'upload' ? job.params : EMPTY_PARAMS.mastodon_hashtag,
  );
  const [every, setEvery] = useState(job?.every_minutes ? String(job.every_minutes) : '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  // Opening the form takes focus to its first field.
  useEffect(() => formRef.current?.querySelector<HTMLInputElement>('#job-name')?.focus(), []);
  const save = useMutation({
    mutationFn: (body: JobInput) => (job ? updateJob(api, job.id, body) : createJob(api, body)),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['scraping'] });
      onClose();
    },
  });
  const set = (key: string, value: string | number | undefined) =>
    setParams((p) => ({ ...p, [key]: value }) as FormSourceParams);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = { name, params, every_minutes: every.trim() === '' ? null : Number(every) };
    const result = createScrapeJobBodySchema.safeParse(body);
    if (!result.success) {
      const found: Record<string, string> = {};
      for (const issue of result.error.issues) found[issue.path.join('.')] ??= issue.message;
      setErrors(found);
      // The first invalid field gets focus, so its message is read with it.
      requestAnimationFrame(() =>
        formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus(),
      );
      return;
    }
    setErrors({});
    save.mutate(body);
  };
  const field = (
    id: string,
    label: string,
    value: string,
    onChange: (value: string) => void,
    error: string | undefined,
    hint?: string,
    inputMode?: 'numeric',
  ) => {
    const describedBy = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          className="input"
          value={value}
          inputMode={inputMode}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy || undefined}
          onChange={(e) => onChange(e.target.value)}
        />
        {hint && (
          <p id={`${id}-hint`} className="field-hint">
            {hint}
          </p>
        )}
        {error && (
          <p id={`${id}-error`} className="field-error">
            {error}
          </p>
        )}
      </div>
    );
  };
  const param = (key: string, label: string, value: string | undefined, hint?: string) =>
    field(`job-${key}`, label, value ?? '', (v) => set(key, v), errors[`params.${key}`], hint);
  const errorCount = Object.keys(errors).length;
  return (
    <form
      ref={formRef}
      className="scraping-form"
      onSubmit={submit}
      aria-labelledby="job-form-heading"
      noValidate
    >
      <h2 id="job-form-heading">{job ? `Edit “${job.name}”` : 'New collection job'}</h2>
      {errorCount > 0 && (
        <p className="form-error" role="alert">
          {errorCount === 1 ? 'One field needs attention.' : `${errorCount} fields need attention.`}
        </p>
      )}
      {field('job-name', 'Name', name, setName, errors.name)}
      <div className="field">
        <label htmlFor="job-source">Source</label>
        <select
          id="job-source"
          className="input"
          value={params.source}
          disabled={job !== null}
          aria-describedby={job ? 'job-source-hint' : undefined}
          onChange={(e) => {
            setParams(EMPTY_PARAMS[e.target.value as FormSourceParams['source']]);
            setErrors({});
          }}
        >
          {(Object.keys(EMPTY_PARAMS) as FormSourceParams['source'][]).map((source) => (
            <option key={source} value={source}>
              {SOURCE_NAMES[source]}
            </option>
          ))}
        </select>
        {job && (
          <p id="job-source-hint" className="field-hint">
            A job’s source cannot change; create another job for another source.
          </p>
        )}
      </div>
      {(params.source === 'mastodon_hashtag' || params.source === 'mastodon_account') &&
        param(
          'instance',
          'Instance',
          params.instance,
          'The instance’s address, e.g. https://mastodon.social',
        )}
      {params.source === 'mastodon_hashtag' &&
        param('hashtag', 'Hashtag', params.hashtag, 'Without the #, e.g. coffee')}
      {params.source === 'mastodon_account' &&
        param('account', 'Account', params.account, 'e.g. Gargron or Gargron@mastodon.social')}
      {params.source === 'bluesky_search' &&
        param('query', 'Search', params.query, 'Words, "a phrase", from:handle or #tag')}
      {params.source === 'bluesky_search' &&
        param('lang', 'Language (optional)', params.lang, 'Only posts in this language, e.g. en')}
      {params.source === 'feed' &&
        param('url', 'Feed URL', params.url, 'An RSS or Atom feed (http or https)')}
      {field(
        'job-max_pages',
        'Pages per run',
        params.max_pages === undefined ? '' : String(params.max_pages),
        (v) => set('max_pages', v.trim() === '' ? undefined : Number(v)),
        errors['params.max_pages'],
        `1 to ${MAX_PAGES_LIMIT}; empty: 10`,
        'numeric',
      )}
      {field(
        'job-every',
        'Every (minutes)',
        every,
        setEvery,
        errors.every_minutes,
        'Empty: run once, now. Otherwise at least 5.',
        'numeric',
      )}
      <FormError message={save.isError ? save.error.message : null} />
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : job ? 'Save' : 'Create and run'}
        </button>
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      </div>
    </form>
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
