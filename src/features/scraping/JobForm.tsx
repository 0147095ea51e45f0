// A collection job's form: its name, source and parameters, once or every N minutes; creates or edits the job.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { FormError } from '@/components/Field';
import { useApp } from '@/components/use-app';
import { createJob, credentialsQuery, updateJob, type JobInput } from '@/api/scraping';
import {
  createScrapeJobBodySchema,
  MAX_PAGES_LIMIT,
  SOURCE_CREDENTIAL,
  sourceParamsSchema,
  youtubeUnitsPerRun,
  type FormSourceParams,
  type ScrapeJob,
} from '@contract/scraping';
import { CREDENTIAL_NAMES } from './CredentialsPanel';
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
  const credentials = useQuery(credentialsQuery(api));
  const credentialKind = SOURCE_CREDENTIAL[params.source];
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
  const numberParam = (key: string, label: string, value: number | undefined, hint: string) =>
    field(
      `job-${key}`,
      label,
      value === undefined ? '' : String(value),
      (v) => set(key, v.trim() === '' ? undefined : Number(v)),
      errors[`params.${key}`],
      hint,
      'numeric',
    );
  // What a YouTube job spends at most per run, from the same sum the server documents.
  const youtubeParams =
    params.source === 'youtube_search' || params.source === 'youtube_channel'
      ? sourceParamsSchema.safeParse({ ...params, credential_id: '00000000-0000-4000-8000-000000000000' })
      : undefined;
  const units =
    youtubeParams?.success &&
    (youtubeParams.data.source === 'youtube_search' || youtubeParams.data.source === 'youtube_channel')
      ? youtubeUnitsPerRun(youtubeParams.data)
      : undefined;
  const credentialChoices = (credentials.data?.credentials ?? []).filter(
    (c) => c.kind === credentialKind && c.usable,
  );
  const credentialError = errors['params.credential_id'];
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
      {credentialKind && 'credential_id' in params && (
        <div className="field">
          <label htmlFor="job-credential_id">Credentials</label>
          <select
            id="job-credential_id"
            className="input"
            value={params.credential_id}
            aria-invalid={credentialError ? true : undefined}
            aria-describedby={`job-credential_id-hint${credentialError ? ' job-credential_id-error' : ''}`}
            onChange={(e) => set('credential_id', e.target.value)}
          >
            <option value="">Choose…</option>
            {credentialChoices.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
          <p id="job-credential_id-hint" className="field-hint">
            {credentialChoices.length === 0
              ? `No ${CREDENTIAL_NAMES[credentialKind]} credentials yet: add them under Credentials below.`
              : `${CREDENTIAL_NAMES[credentialKind]} credentials from the list below.`}
          </p>
          {credentialError && (
            <p id="job-credential_id-error" className="field-error">
              {credentialError}
            </p>
          )}
        </div>
      )}
      {(params.source === 'reddit_search' ||
        params.source === 'youtube_search' ||
        params.source === 'hackernews_search' ||
        params.source === 'x_search') &&
        param(
          'query',
          'Search',
          params.query,
          params.source === 'x_search'
            ? 'X’s query language: words, "a phrase", #tag, from:user, lang:en, -is:retweet'
            : params.source === 'hackernews_search'
              ? 'Words to find in stories and comments'
              : 'Words, "a phrase", -excluded',
        )}
      {params.source === 'reddit_search' &&
        param(
          'subreddit',
          'Subreddit (optional)',
          params.subreddit,
          'Only in this subreddit; empty: all of Reddit',
        )}
      {params.source === 'reddit_subreddit' &&
        param('subreddit', 'Subreddit', params.subreddit, 'Its newest posts, e.g. dataisbeautiful')}
      {(params.source === 'reddit_search' || params.source === 'reddit_subreddit') &&
        numberParam(
          'comment_depth',
          'Comment depth',
          params.comment_depth,
          '0: posts only; up to 10 levels; empty: 2',
        )}
      {params.source === 'youtube_channel' &&
        param(
          'channel_id',
          'Channel id',
          params.channel_id,
          'UC followed by 22 characters, from the channel’s address',
        )}
      {(params.source === 'youtube_search' || params.source === 'youtube_channel') &&
        numberParam(
          'comment_pages',
          'Comment pages per video',
          params.comment_pages,
          '0 to 20 pages of 100 comment threads; empty: 1',
        )}
      {params.source === 'hackernews_search' && (
        <div className="field">
          <label htmlFor="job-items">Items</label>
          <select
            id="job-items"
            className="input"
            value={params.items ?? 'all'}
            onChange={(e) => set('items', e.target.value)}
          >
            <option value="all">Stories and comments</option>
            <option value="story">Stories</option>
            <option value="comment">Comments</option>
          </select>
        </div>
      )}
      {field(
        'job-max_pages',
        'Pages per run',
        params.max_pages === undefined ? '' : String(params.max_pages),
        (v) => set('max_pages', v.trim() === '' ? undefined : Number(v)),
        errors['params.max_pages'],
        `1 to ${MAX_PAGES_LIMIT}; empty: 10`,
        'numeric',
      )}
      {units !== undefined && (
        <p className="field-hint" role="status">
          A run spends at most {units.toLocaleString('en-US')} quota units (a search page costs 100, every
          other page 1); it stops before the credentials’ daily quota and resumes the next day.
        </p>
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
