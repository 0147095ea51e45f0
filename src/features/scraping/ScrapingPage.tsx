// The internal scraping area (spec §2, issue 19), for staff (the route's guard turns anyone else away; the server
// answers 403 to anyone else too): collection jobs with their status, progress and next run, read again every few
// seconds; a form to create and edit a job with each source's parameters validated; a run's log and refused items;
// upload of a corpus file with its progress; corpus totals per platform and day.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AppHeader } from '../../components/AppHeader';
import { EmptyState, PageFrame } from '../../components/PageFrame';
import { FormError } from '../../components/Field';
import { useApp } from '../../components/use-app';
import {
  corpusTotalsQuery,
  createJob,
  jobAction,
  runLogQuery,
  runRefusalsQuery,
  scrapeJobQuery,
  scrapeJobsQuery,
  updateJob,
  uploadCorpusFile,
  type JobInput,
} from '../../api/scraping';
import {
  createScrapeJobBodySchema,
  MAX_PAGES_LIMIT,
  type CorpusTotals,
  type FormSourceParams,
  type ScrapeJob,
  type ScrapeRun,
} from '../../contract/scraping';
import { platformName } from '../../lib/platforms';
import './scraping.css';

const SOURCE_NAMES: Record<ScrapeJob['source'], string> = {
  mastodon_hashtag: 'Mastodon hashtag',
  mastodon_account: 'Mastodon account',
  bluesky_search: 'Bluesky search',
  feed: 'RSS / Atom feed',
  upload: 'File upload',
};

const when = (seconds: number | null) => (seconds ? new Date(seconds * 1000).toLocaleString() : '—');

const RUN_STATUS_TEXT: Record<ScrapeRun['status'], string> = {
  queued: 'Queued',
  running: 'Running',
  waiting: 'Waiting (rate limit or retry)',
  succeeded: 'Done',
  failed: 'Failed',
  paused: 'Paused',
  cancelled: 'Cancelled',
};

function statusText(job: ScrapeJob): string {
  if (job.state === 'cancelled') return 'Cancelled';
  if (job.state === 'paused') return 'Paused';
  const run = job.last_run;
  if (!run) return 'Queued';
  return RUN_STATUS_TEXT[run.status];
}

function progressText(run: ScrapeRun | null): string {
  if (!run) return '—';
  // An upload's counts are written when its import ends; until then the share of the file read is what is known.
  if (run.bytes_total && (run.status === 'running' || run.status === 'waiting'))
    return `${Math.round(((run.bytes_done ?? 0) / run.bytes_total) * 100)}% of the file imported`;
  if (run.bytes_total !== null || run.bytes_done !== null)
    return `${run.fetched} ${run.fetched === 1 ? 'row' : 'rows'} · ${run.inserted} new · ${run.updated} updated · ${run.refused} refused`;
  return `${run.pages} ${run.pages === 1 ? 'page' : 'pages'} · ${run.fetched} fetched · ${run.inserted} new · ${run.updated} updated · ${run.refused} refused`;
}

export function ScrapingPage() {
  const { api } = useApp();
  const jobs = useQuery(scrapeJobsQuery(api));
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
          <Totals />
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
  const open = job.last_run && ['queued', 'running', 'waiting', 'paused'].includes(job.last_run.status);
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

function JobDetail({ jobId, onClose }: { jobId: string; onClose: () => void }) {
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
              <time dateTime={new Date(e.at * 1000).toISOString()}>
                {new Date(e.at * 1000).toLocaleTimeString()}
              </time>{' '}
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

function Totals() {
  const { api } = useApp();
  const totals = useQuery(corpusTotalsQuery(api));
  return (
    <section aria-labelledby="totals-heading">
      <h2 id="totals-heading">Corpus: posts per platform and day (UTC, last 14 days)</h2>
      {totals.isPending ? (
        <p role="status">Loading the totals…</p>
      ) : totals.isError ? (
        <FormError message="The corpus totals could not be loaded." />
      ) : totals.data.all_time.length === 0 ? (
        <EmptyState title="The corpus is empty">Posts collected or uploaded are counted here.</EmptyState>
      ) : (
        <TotalsTable data={totals.data} />
      )}
    </section>
  );
}

function TotalsTable({ data: { days, platforms, all_time } }: { data: CorpusTotals }) {
  return (
    <div className="scraping-scroll" tabIndex={0} role="group" aria-labelledby="totals-heading">
      <table className="scraping-table scraping-totals">
        <thead>
          <tr>
            <th scope="col">Platform</th>
            {days.map((d) => (
              <th scope="col" key={d}>
                <time dateTime={d}>{d.slice(5)}</time>
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
