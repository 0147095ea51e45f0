// How the scraping area writes jobs, runs and instants. The area belongs to no workspace: instants are in the
// reader's own time zone, named, by the product's one formatter.
import type { ScrapeJob, ScrapeRun } from '@contract/scraping';
import { formatDateTime, formatTime, readerTimeZone } from '@/lib/date-time';

export const SOURCE_NAMES: Record<ScrapeJob['source'], string> = {
  mastodon_hashtag: 'Mastodon hashtag',
  mastodon_account: 'Mastodon account',
  bluesky_search: 'Bluesky search',
  feed: 'RSS / Atom feed',
  reddit_search: 'Reddit search',
  reddit_subreddit: 'Reddit subreddit',
  youtube_search: 'YouTube search',
  youtube_channel: 'YouTube channel',
  hackernews_search: 'Hacker News search',
  x_search: 'X recent search',
  upload: 'File upload',
};

/** An instant in unix seconds: "23 Nov 2026, 14:05 CET", or "—". */
export const when = (seconds: number | null) => formatDateTime(seconds || null, readerTimeZone());

/** A log line's time: "14:05:09 CET". */
export const logTime = (seconds: number) => formatTime(seconds, readerTimeZone());

export const RUN_STATUS_TEXT: Record<ScrapeRun['status'], string> = {
  queued: 'Queued',
  running: 'Running',
  waiting: 'Waiting (rate limit or retry)',
  succeeded: 'Done',
  failed: 'Failed',
  paused: 'Paused',
  cancelled: 'Cancelled',
};

/** A run that may still change the corpus. */
export const isOpenRun = (run: ScrapeRun | null) =>
  run !== null && ['queued', 'running', 'waiting', 'paused'].includes(run.status);

export function statusText(job: ScrapeJob): string {
  if (job.state === 'cancelled') return 'Cancelled';
  if (job.state === 'paused') return 'Paused';
  const run = job.last_run;
  if (!run) return 'Queued';
  return RUN_STATUS_TEXT[run.status];
}

export function progressText(run: ScrapeRun | null): string {
  if (!run) return '—';
  // An upload's counts are written when its import ends; until then the share of the file read is what is known.
  if (run.bytes_total && (run.status === 'running' || run.status === 'waiting'))
    return `${Math.round(((run.bytes_done ?? 0) / run.bytes_total) * 100)}% of the file imported`;
  if (run.bytes_total !== null || run.bytes_done !== null)
    return `${run.fetched} ${run.fetched === 1 ? 'row' : 'rows'} · ${run.inserted} new · ${run.updated} updated · ${run.refused} refused`;
  return (
    `${run.pages} ${run.pages === 1 ? 'page' : 'pages'} · ${run.fetched} fetched · ${run.inserted} new · ` +
    `${run.updated} updated · ${run.refused} refused` +
    (run.removed > 0 ? ` · ${run.removed} removed` : '')
  );
}
