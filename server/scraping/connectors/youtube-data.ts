// YouTube through the Data API v3 with an API key (https://developers.google.com/youtube/v3/docs): videos by keyword
// or of a channel, with their comment threads.
//
// - By keyword: search.list (type=video, order=date, 50 a page, `publishedAfter` the newest video of the previous
//   run), then videos.list for the page's ids (statistics and full descriptions). A hit videos.list no longer knows
//   (deleted or made private) leaves the corpus.
// - A channel: channels.list once for its uploads playlist (kept in the cursor), then playlistItems.list pages, newest
//   first, stopping at videos the previous run saw; videos.list as above.
// - Comments: after a page of videos, each video with comments is read as child pages of commentThreads.list
//   (order=time, 100 threads a page, `comment_pages` pages at most); the videos still to read, and the page within the
//   current one, are in the cursor. A video whose comments are disabled is skipped with a note.
// - Quota: every request is charged to the credentials' daily budget before it is sent (context.spend: a search 100
//   units, any other list 1; https://developers.google.com/youtube/v3/determine_quota_cost). When the budget or
//   YouTube's own quota (403 quotaExceeded) is spent, the run waits for the quota's next day (midnight Pacific time)
//   and resumes from its cursor.
// The key goes in the `key` parameter; no note, error or refused item carries it (http.ts names hosts and paths only).
// The mapping of videos and comment threads to corpus rows is in youtube-map.ts.
import { YOUTUBE_PAGE_SIZE, YOUTUBE_UNITS, type SourceParams } from '@contract/scraping';
import {
  CredentialProblem,
  httpGet,
  jsonBody,
  PermanentError,
  QuotaSpentError,
  RateLimitedError,
} from './http';
import { msUntilQuotaReset } from '../credentials';
import {
  credentialOf,
  objectOf,
  stringOf,
  type CollectedItem,
  type Connector,
  type ConnectorContext,
  type CredentialTest,
  type Page,
} from './types';
import { countText, mapThread, mapVideo, watchUrl } from './youtube-map';

type SearchParams = Extract<SourceParams, { source: 'youtube_search' }>;
type ChannelParams = Extract<SourceParams, { source: 'youtube_channel' }>;
type YouTubeParams = SearchParams | ChannelParams;

interface YouTubeCursor {
  /** Videos published after this instant only (ISO; the newest of the previous run). */
  since?: string;
  /** The newest publishedAt seen in this run. */
  top?: string;
  /** The next page of the search or of the uploads playlist. */
  page?: string;
  /** The channel's uploads playlist, once looked up. */
  uploads?: string;
  /** Videos whose comments are still to read, one child page each (or more, up to comment_pages). */
  pending?: string[];
  /** The next page of comments of pending[0], and how many of its pages were read. */
  comments_page?: string;
  comments_read?: number;
  /** The listing has no more pages: the run ends once `pending` is empty. */
  listed?: boolean;
}

const COMMENT_PAGE_SIZE = 100;

/** The reason of a YouTube error answer ({ error: { errors: [{ reason }] } }), if any. */
function reasonOf(error: unknown): { status: number; reason: string; message: string } | undefined {
  if (!(error instanceof PermanentError) || !error.answer) return undefined;
  let body: Record<string, unknown> | undefined;
  try {
    body = objectOf(objectOf(JSON.parse(error.answer.body))?.error);
  } catch {
    body = undefined;
  }
  const first = objectOf(Array.isArray(body?.errors) ? body.errors[0] : undefined);
  return {
    status: error.answer.status,
    reason: stringOf(first?.reason) ?? '',
    message: stringOf(body?.message) ?? '',
  };
}

/** A YouTube error in words; QuotaSpentError when the day's quota is spent. */
function translate(error: unknown): unknown {
  const found = reasonOf(error);
  if (!found) return error;
  const { status, reason } = found;
  if (reason === 'quotaExceeded' || reason === 'dailyLimitExceeded') {
    const wait = msUntilQuotaReset(new Date());
    return new QuotaSpentError(wait, "YouTube says the project's quota for today is spent (quotaExceeded)");
  }
  if (reason === 'rateLimitExceeded' || reason === 'userRateLimitExceeded') {
    return new RateLimitedError(60_000, `YouTube is rate-limiting these requests (${reason})`);
  }
  if (reason === 'keyInvalid' || (status === 400 && /API key not valid/i.test(found.message))) {
    return new CredentialProblem('The API key is not valid.');
  }
  if (reason === 'keyExpired') return new CredentialProblem('The API key has expired: renew it.');
  if (reason === 'accessNotConfigured' || reason === 'SERVICE_DISABLED') {
    return new CredentialProblem(
      "The YouTube Data API v3 is not enabled for this key's Google Cloud project: enable it in the console.",
    );
  }
  if (status === 403 && (reason === 'forbidden' || reason === 'ipRefererBlocked')) {
    return new CredentialProblem(`YouTube refused the API key (${reason}).`);
  }
  if (reason === 'channelNotFound' || reason === 'playlistNotFound') {
    return new PermanentError(`YouTube has no such channel (${reason}).`);
  }
  return error;
}

async function get(path: string, query: Record<string, string>, units: number, context: ConnectorContext) {
  const secret = credentialOf(context);
  await context.spend(units);
  const url = new URL(`${context.urls.youtube.replace(/\/$/, '')}/${path}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  url.searchParams.set('key', secret.api_key ?? '');
  try {
    return objectOf(jsonBody(await httpGet(url.toString(), { ...context.http, signal: context.signal })));
  } catch (error) {
    throw translate(error);
  }
}

const itemsOf = (body: Record<string, unknown> | undefined) =>
  Array.isArray(body?.items) ? (body.items as unknown[]) : [];
/** One page of video ids: a search page or a page of the channel's uploads, newer than `since`. */
async function videoIds(params: YouTubeParams, cursor: YouTubeCursor, context: ConnectorContext) {
  if (params.source === 'youtube_search') {
    const body = await get(
      'search',
      {
        part: 'snippet',
        type: 'video',
        order: 'date',
        maxResults: String(YOUTUBE_PAGE_SIZE),
        q: params.query,
        ...(cursor.since && { publishedAfter: cursor.since }),
        ...(cursor.page && { pageToken: cursor.page }),
      },
      YOUTUBE_UNITS.search,
      context,
    );
    const ids = itemsOf(body)
      .map((item) => stringOf(objectOf(objectOf(item)?.id)?.videoId))
      .filter((id): id is string => id !== undefined);
    return {
      ids,
      next: stringOf(body?.nextPageToken),
      reachedOld: false,
      uploads: undefined,
      count: itemsOf(body).length,
    };
  }
  let uploads = cursor.uploads;
  if (!uploads) {
    const channel = await get(
      'channels',
      { part: 'contentDetails', id: params.channel_id },
      YOUTUBE_UNITS.list,
      context,
    );
    uploads = stringOf(
      objectOf(objectOf(objectOf(itemsOf(channel)[0])?.contentDetails)?.relatedPlaylists)?.uploads,
    );
    if (!uploads) throw new PermanentError(`YouTube has no channel ${params.channel_id}.`);
  }
  const body = await get(
    'playlistItems',
    {
      part: 'snippet,contentDetails',
      playlistId: uploads,
      maxResults: String(YOUTUBE_PAGE_SIZE),
      ...(cursor.page && { pageToken: cursor.page }),
    },
    YOUTUBE_UNITS.list,
    context,
  );
  let reachedOld = false;
  const ids: string[] = [];
  for (const item of itemsOf(body)) {
    const details = objectOf(objectOf(item)?.contentDetails);
    const id = stringOf(details?.videoId);
    const published =
      stringOf(details?.videoPublishedAt) ?? stringOf(objectOf(objectOf(item)?.snippet)?.publishedAt);
    if (cursor.since && published && Date.parse(published) <= Date.parse(cursor.since)) {
      reachedOld = true;
      continue;
    }
    if (id) ids.push(id);
  }
  return { ids, next: stringOf(body?.nextPageToken), reachedOld, uploads, count: itemsOf(body).length };
}

async function videosPage(
  params: YouTubeParams,
  cursor: YouTubeCursor,
  context: ConnectorContext,
): Promise<Page> {
  const found = await videoIds(params, cursor, context);
  const videos =
    found.ids.length === 0
      ? []
      : itemsOf(
          await get(
            'videos',
            { part: 'snippet,statistics', id: found.ids.join(',') },
            YOUTUBE_UNITS.list,
            context,
          ),
        );
  const known = new Set(videos.map((v) => stringOf(objectOf(v)?.id)));
  const items: CollectedItem[] = [
    ...videos.map(mapVideo),
    // In the search or the playlist, gone from videos.list: deleted or made private.
    ...found.ids
      .filter((id) => !known.has(id))
      .map((id) => ({ ref: watchUrl(id), gone: { platform: 'youtube', external_id: id }, raw: id })),
  ];
  let top = cursor.top;
  for (const video of videos) {
    const published = stringOf(objectOf(objectOf(video)?.snippet)?.publishedAt);
    if (
      published &&
      !Number.isNaN(Date.parse(published)) &&
      (!top || Date.parse(published) > Date.parse(top))
    ) {
      top = published;
    }
  }
  const pending =
    params.comment_pages > 0
      ? videos
          .filter((v) => (countText(objectOf(objectOf(v)?.statistics)?.commentCount) ?? 1) > 0)
          .map((v) => stringOf(objectOf(v)?.id)!)
      : [];
  const listed = !found.next || found.count === 0 || found.reachedOld;
  const done = listed && pending.length === 0;
  const what =
    params.source === 'youtube_search' ? `search "${params.query}"` : `uploads of ${params.channel_id}`;
  const note =
    `${what}${cursor.page ? ' (next page)' : ''}: ${found.count} videos` +
    (found.reachedOld ? ' (reached those seen before)' : '') +
    (items.length > videos.length ? `, ${items.length - videos.length} gone` : '') +
    (pending.length > 0 ? `; comments of ${pending.length} next` : '');
  const keep = { ...(found.uploads && { uploads: found.uploads }) };
  return {
    items,
    note,
    done,
    cursor: done
      ? { since: top ?? cursor.since, ...keep }
      : {
          ...(cursor.since && { since: cursor.since }),
          ...(top && { top }),
          ...keep,
          ...(!listed && found.next && { page: found.next }),
          ...(pending.length > 0 && { pending }),
          ...(listed && { listed: true }),
        },
  };
}

async function commentsPage(
  params: YouTubeParams,
  cursor: YouTubeCursor,
  context: ConnectorContext,
): Promise<Page> {
  const [videoId, ...rest] = cursor.pending!;
  let items: CollectedItem[] = [];
  let next: string | undefined;
  let note: string;
  try {
    const body = await get(
      'commentThreads',
      {
        part: 'snippet',
        videoId: videoId!,
        maxResults: String(COMMENT_PAGE_SIZE),
        order: 'time',
        textFormat: 'plainText',
        ...(cursor.comments_page && { pageToken: cursor.comments_page }),
      },
      YOUTUBE_UNITS.list,
      context,
    );
    items = itemsOf(body).map((thread) => mapThread(thread, videoId!));
    next = stringOf(body?.nextPageToken);
    note = `comments of ${videoId}${cursor.comments_page ? ' (next page)' : ''}: ${items.length} threads`;
  } catch (error) {
    const reason = reasonOf(error)?.reason;
    if (reason !== 'commentsDisabled' && reason !== 'videoNotFound') throw error;
    note = `comments of ${videoId}: ${reason === 'commentsDisabled' ? 'disabled on this video' : 'the video is gone'}`;
  }
  const read = (cursor.comments_read ?? 0) + 1;
  const more = next !== undefined && read < params.comment_pages;
  const remaining = more ? cursor.pending! : rest;
  const done = remaining.length === 0 && cursor.listed === true;
  const base = {
    ...(cursor.since && { since: cursor.since }),
    ...(cursor.uploads && { uploads: cursor.uploads }),
  };
  return {
    items,
    note,
    child: true,
    done,
    cursor: done
      ? { ...base, since: cursor.top ?? cursor.since }
      : {
          ...base,
          ...(cursor.top && { top: cursor.top }),
          ...(cursor.page && { page: cursor.page }),
          ...(remaining.length > 0 && { pending: remaining }),
          ...(more && { comments_page: next, comments_read: read }),
          ...(cursor.listed && { listed: true }),
        },
  };
}

function youtubeConnector<P extends YouTubeParams>(): Connector<P> {
  return {
    fetchPage(params, cursor, context) {
      const state = (cursor ?? {}) as YouTubeCursor;
      return state.pending?.length
        ? commentsPage(params, state, context)
        : videosPage(params, state, context);
    },
    finish(cursor) {
      const c = (cursor ?? {}) as YouTubeCursor;
      return { since: c.top ?? c.since, ...(c.uploads && { uploads: c.uploads }) };
    },
    childrenPending(cursor) {
      return ((cursor as YouTubeCursor | null)?.pending?.length ?? 0) > 0;
    },
  };
}

export const youtubeSearch = youtubeConnector<SearchParams>();
export const youtubeChannel = youtubeConnector<ChannelParams>();

/** Test connection: one 1-unit request (the video categories of a region). */
export const youtubeTest: CredentialTest = async (secret, context) => {
  await get('videoCategories', { part: 'snippet', regionCode: 'US' }, YOUTUBE_UNITS.list, {
    ...context,
    credential: { id: 'test', secret },
  });
  return 'The API key works: the YouTube Data API answered (1 quota unit spent).';
};
