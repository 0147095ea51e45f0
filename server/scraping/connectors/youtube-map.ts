// YouTube's resources as corpus rows (https://developers.google.com/youtube/v3/docs): a video (videos.list, with its
// statistics) and a comment thread's top-level comment (commentThreads.list), upserted by their ids. The paging, the
// quota and the key are in youtube-data.ts.
import { objectOf, rawOf, stringOf, type CollectedItem, withoutEmpty } from './types';

/** A count YouTube gives as a decimal string (statistics), or undefined. */
export const countText = (value: unknown) => {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
};
/** A BCP 47 tag's primary subtag; YouTube's "zxx" (no linguistic content) and "und" are not languages. */
const languageOf = (tag: unknown) => {
  const primary = stringOf(tag)?.split(/[-_]/)[0]?.toLowerCase();
  return primary && /^[a-z]{2,3}$/.test(primary) && primary !== 'zxx' && primary !== 'und'
    ? primary
    : undefined;
};
export const watchUrl = (id: string) => `https://www.youtube.com/watch?v=${encodeURIComponent(id)}`;

export function mapVideo(value: unknown): CollectedItem {
  const video = objectOf(value);
  const raw = rawOf(value);
  const id = stringOf(video?.id);
  const ref = id ? watchUrl(id) : '(no id)';
  const snippet = objectOf(video?.snippet);
  if (!video || !id || !snippet) return { ref, reason: 'not a video resource (id and snippet)', raw };
  const channelId = stringOf(snippet.channelId);
  const title = stringOf(snippet.title);
  if (!channelId || title === undefined) return { ref, reason: 'the video has no channel or no title', raw };
  const description = stringOf(snippet.description);
  const statistics = objectOf(video.statistics);
  const channelTitle = stringOf(snippet.channelTitle) || channelId;
  return {
    ref,
    raw,
    row: withoutEmpty({
      platform: 'youtube',
      external_id: id,
      author_external_id: channelId,
      author_handle: channelTitle,
      author_display_name: channelTitle,
      text: description ? `${title}\n\n${description}` : title,
      language: languageOf(snippet.defaultAudioLanguage) ?? languageOf(snippet.defaultLanguage),
      posted_at: stringOf(snippet.publishedAt),
      kind: 'original',
      media: 'video',
      views: countText(statistics?.viewCount),
      likes: countText(statistics?.likeCount),
      comments: countText(statistics?.commentCount),
      url: watchUrl(id),
    }),
  };
}

export function mapThread(value: unknown, videoId: string): CollectedItem {
  const thread = objectOf(value);
  const raw = rawOf(value);
  const top = objectOf(objectOf(thread?.snippet)?.topLevelComment);
  const id = stringOf(top?.id) ?? stringOf(thread?.id);
  const ref = id ? `${watchUrl(videoId)}&lc=${encodeURIComponent(id)}` : '(no id)';
  const snippet = objectOf(top?.snippet);
  if (!id || !snippet)
    return { ref, reason: 'not a comment thread (a top-level comment with a snippet)', raw };
  const author = stringOf(snippet.authorDisplayName);
  const text = stringOf(snippet.textOriginal) ?? stringOf(snippet.textDisplay);
  if (!author || text === undefined) return { ref, reason: 'the comment has no author or no text', raw };
  return {
    ref,
    raw,
    row: withoutEmpty({
      platform: 'youtube',
      external_id: id,
      author_external_id: stringOf(objectOf(snippet.authorChannelId)?.value) ?? author,
      author_handle: author.replace(/^@/, ''),
      author_display_name: author,
      author_avatar_url: stringOf(snippet.authorProfileImageUrl),
      text,
      posted_at: stringOf(snippet.publishedAt),
      kind: 'reply',
      media: 'text',
      likes: typeof snippet.likeCount === 'number' ? snippet.likeCount : undefined,
      comments:
        typeof objectOf(thread?.snippet)?.totalReplyCount === 'number'
          ? objectOf(thread?.snippet)?.totalReplyCount
          : undefined,
      url: ref,
    }),
  };
}
