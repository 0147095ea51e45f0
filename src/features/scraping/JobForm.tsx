// A collection job's form: its name, source and parameters, once or every N minutes; creates or edits the job.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { FormError } from '@/components/Field';
import { useApp } from '@/components/use-app';
import { createJob, updateJob, type JobInput } from '@/api/scraping';
import {
  createScrapeJobBodySchema,
  MAX_PAGES_LIMIT,
  type FormSourceParams,
  type ScrapeJob,
} from '@contract/scraping';
import { SOURCE_NAMES } from './scraping-format';

const EMPTY_PARAMS: Record<FormSourceParams['source'], FormSourceParams> = {
  mastodon_hashtag: { source: 'mastodon_hashtag', instance: 'https://mastodon.social', hashtag: '' },
  mastodon_account: { source: 'mastodon_account', instance: 'https://mastodon.social', account: '' },
  bluesky_search: { source: 'bluesky_search', query: '' },
  feed: { source: 'feed', url: '' },
  reddit_search: { source: 'reddit_search', credential_id: '', query: '' },
  reddit_subreddit: { source: 'reddit_subreddit', credential_id: '', subreddit: '' },
  youtube_search: { source: 'youtube_search', credential_id: '', query: '' },
  youtube_channel: { source: 'youtube_channel', credential_id: '', channel_id: '' },
  hackernews_search: { source: 'hackernews_search', query: '' },
  x_search: { source: 'x_search', credential_id: '', query: '' },
};

export function JobForm({ job, onClose }: { job: ScrapeJob | null; onClose: () => void }) {
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
