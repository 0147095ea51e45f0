// A local stand-in for the YouTube Data API v3 (https://developers.google.com/youtube/v3/docs) over in-memory videos
// and comment threads, answering as the API does for an API key: search (type=video, order=date, q with `a|b` for
// either, publishedAfter, maxResults, pageToken), videos (id=a,b,…: snippet and statistics, counts as strings),
// channels (id → the uploads playlist UU…), playlistItems (a channel's uploads, newest first), commentThreads
// (videoId, order=time, pageToken; 403 commentsDisabled), videoCategories; a wrong key is the API's 400 keyInvalid, a
// spent project quota its 403 quotaExceeded. Resources are shaped like test/fixtures/scraping/youtube-*.json.
import type { Reply, Route } from './replay-server';

export interface YouTubeVideo {
  id: string;
  channelId: string;
  channelTitle: string;
  title: string;
  description: string;
  publishedAt: string;
  viewCount: number;
  likeCount?: number;
  commentCount: number;
  defaultAudioLanguage?: string;
  commentsDisabled?: boolean;
}

export interface YouTubeComment {
  id: string;
  videoId: string;
  author: string;
  authorChannelId: string;
  text: string;
  publishedAt: string;
  likeCount: number;
  totalReplyCount: number;
}

const error = (code: number, reason: string, message: string, domain = 'youtube.api') => ({
  status: code,
  body: JSON.stringify({ error: { code, message, errors: [{ message, domain, reason }] } }),
});

/** `count` videos of one channel, newest first from `newest` (ms), an hour apart; `withComments` of them commented. */
export function youtubeVideos(
  count: number,
  {
    newest = Date.UTC(2026, 0, 1),
    channelId = 'UCmurmurCoffeeChannel001',
    prefix = 'vid',
    everyCommented = 0,
  } = {},
): YouTubeVideo[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${String(count - i).padStart(8, '0')}`,
    channelId,
    channelTitle: 'Murmur Coffee',
    title: `How to brew a lovely V60, episode ${count - i}`,
    description: `A slow pour, 15 g of coffee, 250 g of water. #coffee #brewing (${count - i})`,
    publishedAt: new Date(newest - i * 3_600_000).toISOString(),
    viewCount: 1_000 + i * 37,
    likeCount: 50 + i,
    commentCount: everyCommented > 0 && i % everyCommented === 0 ? 3 : 0,
    defaultAudioLanguage: i % 2 === 0 ? 'en-US' : 'en',
  }));
}

/** Three comment threads under each video that says it has comments. */
export function youtubeComments(videos: YouTubeVideo[]): YouTubeComment[] {
  return videos
    .filter((v) => v.commentCount > 0)
    .flatMap((v) =>
      [0, 1, 2].map((n) => ({
        id: `Ugz${v.id}c${n}`,
        videoId: v.id,
        author: `@viewer${n}`,
        authorChannelId: `UCviewer${n}`,
        text: `Great video, my cup tastes wonderful now (${v.id}, ${n})`,
        publishedAt: new Date(Date.parse(v.publishedAt) + (n + 1) * 60_000).toISOString(),
        likeCount: n,
        totalReplyCount: 0,
      })),
    );
}

function videoResource(v: YouTubeVideo) {
  return {
    kind: 'youtube#video',
    etag: `etag-${v.id}`,
    id: v.id,
    snippet: {
      publishedAt: v.publishedAt,
      channelId: v.channelId,
      title: v.title,
      description: v.description,
      thumbnails: { default: { url: `https://i.ytimg.com/vi/${v.id}/default.jpg`, width: 120, height: 90 } },
      channelTitle: v.channelTitle,
      tags: ['coffee', 'v60'],
      categoryId: '26',
      liveBroadcastContent: 'none',
      ...(v.defaultAudioLanguage && { defaultAudioLanguage: v.defaultAudioLanguage }),
    },
    statistics: {
      viewCount: String(v.viewCount),
      ...(v.likeCount !== undefined && { likeCount: String(v.likeCount) }),
      favoriteCount: '0',
      commentCount: String(v.commentCount),
    },
  };
}

export interface YouTubeSource {
  videos: YouTubeVideo[];
  comments: YouTubeComment[];
  apiKey: string;
  /** Once true, every call is YouTube's 403 quotaExceeded. */
  quotaExceeded: boolean;
  routes: Record<string, Route>;
}

export function youtubeReplay(
  videos: YouTubeVideo[],
  comments: YouTubeComment[],
  options: {
    apiKey?: string;
    before?: (url: URL, count: number) => Reply | undefined;
    delayMs?: number;
  } = {},
): YouTubeSource {
  let count = 0;
  const source: YouTubeSource = {
    videos,
    comments,
    apiKey: options.apiKey ?? 'AIzaMurmurTestKey',
    quotaExceeded: false,
    routes: {},
  };
  const api =
    (answer: (url: URL) => Reply | unknown): Route =>
    (url) => {
      count += 1;
      const early = options.before?.(url, count);
      if (early) return early;
      if (url.searchParams.get('key') !== source.apiKey) {
        return error(400, 'keyInvalid', 'API key not valid. Please pass a valid API key.', 'usageLimits');
      }
      if (source.quotaExceeded) {
        return error(
          403,
          'quotaExceeded',
          'The request cannot be completed because you have exceeded your quota.',
          'youtube.quota',
        );
      }
      const body = answer(url);
      const reply =
        body && typeof body === 'object' && 'status' in body
          ? (body as Reply)
          : { body: JSON.stringify(body) };
      return { ...reply, ...(options.delayMs && { delayMs: options.delayMs }) };
    };
  const paged = <T>(all: T[], url: URL, size: number) => {
    const max = Math.min(size, Number(url.searchParams.get('maxResults') ?? 5));
    const start = Number(url.searchParams.get('pageToken')?.replace('page', '') ?? 0);
    const slice = all.slice(start, start + max);
    const next = start + max < all.length ? `page${start + max}` : undefined;
    return { slice, next, total: all.length, max };
  };
  const newestFirst = (list: YouTubeVideo[]) =>
    [...list].sort((a, b) => Date.parse(b.publishedAt) - Date.parse(a.publishedAt));
  source.routes['/search'] = api((url) => {
    // q's `a|b` is either; each side's words (quotes dropped) are all required.
    const either = (url.searchParams.get('q') ?? '')
      .toLowerCase()
      .split('|')
      .map((side) => side.replaceAll('"', '').split(/\s+/).filter(Boolean));
    const after = url.searchParams.get('publishedAfter');
    const found = newestFirst(source.videos).filter(
      (v) =>
        either.some((words) => words.every((w) => `${v.title} ${v.description}`.toLowerCase().includes(w))) &&
        (!after || Date.parse(v.publishedAt) >= Date.parse(after)),
    );
    const { slice, next, total, max } = paged(found, url, 50);
    return {
      kind: 'youtube#searchListResponse',
      etag: 'etag-search',
      ...(next && { nextPageToken: next }),
      regionCode: 'US',
      pageInfo: { totalResults: total, resultsPerPage: max },
      items: slice.map((v) => ({
        kind: 'youtube#searchResult',
        etag: `etag-s-${v.id}`,
        id: { kind: 'youtube#video', videoId: v.id },
        snippet: {
          publishedAt: v.publishedAt,
          channelId: v.channelId,
          title: v.title,
          description: v.description.slice(0, 100),
          channelTitle: v.channelTitle,
          liveBroadcastContent: 'none',
          publishTime: v.publishedAt,
        },
      })),
    };
  });
  source.routes['/videos'] = api((url) => {
    const ids = (url.searchParams.get('id') ?? '').split(',');
    return {
      kind: 'youtube#videoListResponse',
      etag: 'etag-videos',
      items: source.videos.filter((v) => ids.includes(v.id)).map(videoResource),
      pageInfo: { totalResults: ids.length, resultsPerPage: ids.length },
    };
  });
  source.routes['/channels'] = api((url) => {
    const id = url.searchParams.get('id') ?? '';
    const known = source.videos.some((v) => v.channelId === id);
    return {
      kind: 'youtube#channelListResponse',
      etag: 'etag-channels',
      pageInfo: { totalResults: known ? 1 : 0, resultsPerPage: 5 },
      ...(known && {
        items: [
          {
            kind: 'youtube#channel',
            etag: `etag-${id}`,
            id,
            contentDetails: { relatedPlaylists: { likes: '', uploads: `UU${id.slice(2)}` } },
          },
        ],
      }),
    };
  });
  source.routes['/playlistItems'] = api((url) => {
    const playlist = url.searchParams.get('playlistId') ?? '';
    const found = newestFirst(source.videos.filter((v) => `UU${v.channelId.slice(2)}` === playlist));
    if (found.length === 0)
      return error(
        404,
        'playlistNotFound',
        "The playlist identified with the request's playlistId parameter cannot be found.",
        'youtube.playlistItem',
      );
    const { slice, next, total, max } = paged(found, url, 50);
    return {
      kind: 'youtube#playlistItemListResponse',
      etag: 'etag-playlist',
      ...(next && { nextPageToken: next }),
      pageInfo: { totalResults: total, resultsPerPage: max },
      items: slice.map((v, i) => ({
        kind: 'youtube#playlistItem',
        etag: `etag-p-${v.id}`,
        id: `PL${v.id}`,
        snippet: {
          publishedAt: v.publishedAt,
          channelId: v.channelId,
          title: v.title,
          description: v.description,
          channelTitle: v.channelTitle,
          playlistId: playlist,
          position: i,
          resourceId: { kind: 'youtube#video', videoId: v.id },
          videoOwnerChannelTitle: v.channelTitle,
          videoOwnerChannelId: v.channelId,
        },
        contentDetails: { videoId: v.id, videoPublishedAt: v.publishedAt },
      })),
    };
  });
  source.routes['/commentThreads'] = api((url) => {
    const videoId = url.searchParams.get('videoId') ?? '';
    const video = source.videos.find((v) => v.id === videoId);
    if (!video)
      return error(
        404,
        'videoNotFound',
        'The video identified by the videoId parameter could not be found.',
        'youtube.commentThread',
      );
    if (video.commentsDisabled) {
      return error(
        403,
        'commentsDisabled',
        'The video identified by the videoId parameter has disabled comments.',
        'youtube.commentThread',
      );
    }
    const found = source.comments
      .filter((c) => c.videoId === videoId)
      .sort((a, b) => Date.parse(b.publishedAt) - Date.parse(a.publishedAt));
    const { slice, next, total, max } = paged(found, url, 100);
    return {
      kind: 'youtube#commentThreadListResponse',
      etag: 'etag-threads',
      ...(next && { nextPageToken: next }),
      pageInfo: { totalResults: total, resultsPerPage: max },
      items: slice.map((c) => ({
        kind: 'youtube#commentThread',
        etag: `etag-t-${c.id}`,
        id: c.id,
        snippet: {
          channelId: video.channelId,
          videoId,
          topLevelComment: {
            kind: 'youtube#comment',
            etag: `etag-c-${c.id}`,
            id: c.id,
            snippet: {
              channelId: video.channelId,
              videoId,
              textDisplay: c.text,
              textOriginal: c.text,
              authorDisplayName: c.author,
              authorProfileImageUrl: `https://yt3.ggpht.example/${c.authorChannelId}.jpg`,
              authorChannelUrl: `http://www.youtube.com/${c.author}`,
              authorChannelId: { value: c.authorChannelId },
              canRate: true,
              viewerRating: 'none',
              likeCount: c.likeCount,
              publishedAt: c.publishedAt,
              updatedAt: c.publishedAt,
            },
          },
          canReply: true,
          totalReplyCount: c.totalReplyCount,
          isPublic: true,
        },
      })),
    };
  });
  source.routes['/videoCategories'] = api(() => ({
    kind: 'youtube#videoCategoryListResponse',
    etag: 'etag-categories',
    items: [
      {
        kind: 'youtube#videoCategory',
        etag: 'etag-26',
        id: '26',
        snippet: { title: 'Howto & Style', assignable: true, channelId: 'UCBR8-60-B28hp2BmDPdntcQ' },
      },
    ],
  }));
  return source;
}
