// The internal scraping area (spec §2, issue 19), for staff (the route's guard turns anyone else away; the server
// answers 403 to anyone else too): collection jobs with their status, progress and next run, read again every few
// seconds; a form to create and edit a job with each source's parameters validated; a run's log and refused items;
// upload of a corpus file with its progress; corpus totals per platform and day.
import { useState, type FormEvent } from 'react';
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

function statusText(job: ScrapeJob): string {
  if (job.state === 'cancelled') return 'Cancelled';
  if (job.state === 'paused') return 'Paused';
  const run = job.last_run;
  if (!run) return 'Queued';
  return {
    queued: 'Queued',
    running: 'Running',
    waiting: 'Waiting (rate limit or retry)',
    succeeded: 'Done',
    failed: 'Failed',
    paused: 'Paused',
    cancelled: 'Cancelled',
  }[run.status];
}

function progressText(run: ScrapeRun | null): string {
  if (!run) return '—';
  if (run.bytes_total)
    return `${Math.round(((run.bytes_done ?? 0) / run.bytes_total) * 100)}% of the file · ${run.inserted} new`;
  return `${run.pages} pages · ${run.fetched} fetched · ${run.inserted} new · ${run.updated} updated · ${run.refused} refused`;
}

export function ScrapingPage() {
  const { api } = useApp();
  const jobs = useQuery(scrapeJobsQuery(api));
  const [editing, setEditing] = useState<ScrapeJob | 'new' | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  return (
    <>
      <AppHeader place="scraping" />
      <main className="standalone scraping">
        <PageFrame
          title="Scraping"
          description="Internal: collection jobs that feed the corpus."
          actions={
            <button type="button" className="button primary" onClick={() => setEditing('new')}>
              New job
            </button>
          }
        >
          {editing && <JobForm job={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
          <UploadPanel />
          <section aria-labelledby="jobs-heading">
            <h2 id="jobs-heading">Jobs</h2>
            {jobs.isPending ? (
              <p role="status">Loading jobs…</p>
            ) : jobs.isError ? (
              <FormError message="The jobs could not be loaded; retrying." />
            ) : jobs.data.jobs.length === 0 ? (
              <EmptyState title="No scraping jobs">
                Create a job or upload a file to collect posts.
              </EmptyState>
            ) : (
              <table className="scraping-table">
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
            )}
          </section>
          {selected && <JobDetail jobId={selected} onClose={() => setSelected(null)} />}
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
        <button type="button" className="link-button" onClick={onOpen}>
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
      <td className="scraping-actions">
        {job.state === 'active' && !open && (
          <button type="button" onClick={() => action.mutate('run')}>
            Run now
          </button>
        )}
        {job.state === 'active' && (
          <button type="button" onClick={() => action.mutate('pause')}>
            Pause
          </button>
        )}
        {job.state === 'paused' && (
          <button type="button" onClick={() => action.mutate('resume')}>
            Resume
          </button>
        )}
        {job.state !== 'cancelled' && job.source !== 'upload' && (
          <button type="button" onClick={onEdit}>
            Edit
          </button>
        )}
        {job.state !== 'cancelled' && (
          <button type="button" onClick={() => action.mutate('cancel')}>
            Cancel
          </button>
        )}
        {action.isError && <span role="alert">{action.error.message}</span>}
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
  const [name, setName] = useState(job?.name ?? '');
  const [params, setParams] = useState<FormSourceParams>(
    job && job.params.source !== 'upload' ? job.params : EMPTY_PARAMS.mastodon_hashtag,
  );
  const [every, setEvery] = useState(job?.every_minutes ? String(job.every_minutes) : '');
  const [errors, setErrors] = useState<Record<string, string>>({});
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
      setErrors(Object.fromEntries(result.error.issues.map((i) => [i.path.join('.'), i.message])));
      return;
    }
    setErrors({});
    save.mutate(body);
  };
  const field = (key: string, label: string, value: string | number | undefined, hint?: string) => {
    const id = `job-${key}`;
    const error = errors[`params.${key}`] ?? errors[key];
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          value={value ?? ''}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          onChange={(e) =>
            set(
              key,
              key === 'max_pages'
                ? e.target.value === ''
                  ? undefined
                  : Number(e.target.value)
                : e.target.value,
            )
          }
        />
        {hint && <small>{hint}</small>}
        {error && (
          <span id={`${id}-error`} className="field-error" role="alert">
            {error}
          </span>
        )}
      </div>
    );
  };
  return (
    <form className="scraping-form" onSubmit={submit} aria-label={job ? 'Edit job' : 'New job'} noValidate>
      <h2>{job ? `Edit “${job.name}”` : 'New collection job'}</h2>
      <div className="field">
        <label htmlFor="job-name">Name</label>
        <input
          id="job-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-invalid={errors.name ? true : undefined}
        />
        {errors.name && (
          <span className="field-error" role="alert">
            {errors.name}
          </span>
        )}
      </div>
      <div className="field">
        <label htmlFor="job-source">Source</label>
        <select
          id="job-source"
          value={params.source}
          disabled={job !== null}
          onChange={(e) => setParams(EMPTY_PARAMS[e.target.value as FormSourceParams['source']])}
        >
          {(Object.keys(EMPTY_PARAMS) as FormSourceParams['source'][]).map((source) => (
            <option key={source} value={source}>
              {SOURCE_NAMES[source]}
            </option>
          ))}
        </select>
      </div>
      {(params.source === 'mastodon_hashtag' || params.source === 'mastodon_account') &&
        field(
          'instance',
          'Instance',
          params.instance,
          'The instance’s address, e.g. https://mastodon.social',
        )}
      {params.source === 'mastodon_hashtag' && field('hashtag', 'Hashtag', params.hashtag)}
      {params.source === 'mastodon_account' &&
        field('account', 'Account', params.account, 'e.g. Gargron or Gargron@mastodon.social')}
      {params.source === 'bluesky_search' && field('query', 'Search', params.query)}
      {params.source === 'bluesky_search' && field('lang', 'Language (optional)', params.lang, 'e.g. en')}
      {params.source === 'feed' &&
        field('url', 'Feed URL', params.url, 'An RSS or Atom feed (http or https)')}
      {field('max_pages', 'Pages per run', params.max_pages, `1 to ${MAX_PAGES_LIMIT} (default 10)`)}
      <div className="field">
        <label htmlFor="job-every">Every (minutes)</label>
        <input
          id="job-every"
          inputMode="numeric"
          value={every}
          onChange={(e) => setEvery(e.target.value)}
          aria-invalid={errors.every_minutes ? true : undefined}
        />
        <small>Empty: run once, now. At least 5.</small>
        {errors.every_minutes && (
          <span className="field-error" role="alert">
            {errors.every_minutes}
          </span>
        )}
      </div>
      <FormError message={save.isError ? save.error.message : null} />
      <div className="scraping-actions">
        <button type="submit" className="button primary" disabled={save.isPending}>
          {job ? 'Save' : 'Create and run'}
        </button>
        <button type="button" onClick={onClose}>
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
  const onFile = async (file: File | undefined) => {
    if (!file) return;
    setError(null);
    setProgress(0);
    try {
      await uploadCorpusFile(api, config.VITE_API_BASE_URL, file, setProgress);
      await client.invalidateQueries({ queryKey: ['scraping'] });
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setProgress(null);
    }
  };
  return (
    <section aria-labelledby="upload-heading" className="scraping-upload">
      <h2 id="upload-heading">Upload a corpus file</h2>
      <label htmlFor="upload-file">NDJSON or CSV in the corpus format</label>
      <input
        id="upload-file"
        type="file"
        accept=".ndjson,.jsonl,.csv"
        onChange={(e) => void onFile(e.target.files?.[0])}
      />
      {progress !== null && (
        <progress max={1} value={progress} aria-label="Upload progress">
          {Math.round(progress * 100)}%
        </progress>
      )}
      <FormError message={error} />
    </section>
  );
}

function JobDetail({ jobId, onClose }: { jobId: string; onClose: () => void }) {
  const { api } = useApp();
  const detail = useQuery(scrapeJobQuery(api, jobId));
  const [runId, setRunId] = useState<string | null>(null);
  if (detail.isPending) return <p role="status">Loading the job…</p>;
  if (detail.isError) return <FormError message="The job could not be loaded." />;
  const run = detail.data.runs.find((r) => r.id === runId) ?? detail.data.runs[0];
  return (
    <section aria-labelledby="detail-heading" className="scraping-detail">
      <h2 id="detail-heading">{detail.data.job.name}: runs</h2>
      <button type="button" onClick={onClose}>
        Close
      </button>
      {detail.data.runs.length === 0 ? (
        <p>No run yet.</p>
      ) : (
        <>
          <label htmlFor="run-select">Run</label>
          <select id="run-select" value={run?.id} onChange={(e) => setRunId(e.target.value)}>
            {detail.data.runs.map((r) => (
              <option key={r.id} value={r.id}>
                {when(r.queued_at)} — {r.status}
              </option>
            ))}
          </select>
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
        {progressText(run)}
        {run.error && <span className="field-error"> · {run.error}</span>}
      </p>
      <h3>Log</h3>
      <ol className="scraping-log" aria-label="Run log">
        {log.data?.entries.map((e) => (
          <li key={e.id} data-level={e.level}>
            <time>{new Date(e.at * 1000).toLocaleTimeString()}</time> {e.message}
          </li>
        ))}
      </ol>
      <h3>Refused items ({refused.data?.total ?? 0})</h3>
      {refused.data && refused.data.items.length > 0 && (
        <table className="scraping-table">
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {refused.data.items.map((item) => (
              <tr key={item.id}>
                <td>{item.ref}</td>
                <td>{item.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function Totals() {
  const { api } = useApp();
  const totals = useQuery(corpusTotalsQuery(api));
  if (!totals.data) return null;
  const { days, platforms, all_time } = totals.data;
  return (
    <section aria-labelledby="totals-heading">
      <h2 id="totals-heading">Corpus: posts per platform and day (UTC, last 14 days)</h2>
      <div className="scraping-scroll">
        <table className="scraping-table">
          <thead>
            <tr>
              <th scope="col">Platform</th>
              {days.map((d) => (
                <th scope="col" key={d}>
                  {d.slice(5)}
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
                  <td key={days[i]}>{n}</td>
                ))}
                <td>{posts}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
