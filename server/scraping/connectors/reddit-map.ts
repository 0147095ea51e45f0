// Reddit's things as corpus rows (https://www.reddit.com/dev/api): a post (kind t3) and a comment tree (kind t1,
// flattened), upserted by their fullnames. Deleted or removed ones ("[deleted]", "[removed]", removed_by_category)
// leave the corpus; "more" stubs are counted, not followed. The paging and the token are in reddit-api.ts.
import { countOf, objectOf, rawOf, stringOf, type CollectedItem, withoutEmpty } from './types';

const GONE_TEXTS = new Set(['[deleted]', '[removed]']);

const isoOf = (seconds: unknown) =>
  typeof seconds === 'number' && Number.isFinite(seconds)
    ? new Date(seconds * 1000).toISOString()
    : undefined;
const score = (value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) ? Math.max(0, value) : undefined;
const permalinkUrl = (permalink: unknown) => {
  const path = stringOf(permalink);
  return path ? `https://www.reddit.com${path}` : undefined;
};

function mediaOf(post: Record<string, unknown>): string {
  const hint = stringOf(post.post_hint) ?? '';
  if (post.is_video === true || hint.includes('video')) return 'video';
  if (hint === 'image' || post.is_gallery === true) return 'image';
  return post.is_self === true ? 'text' : 'link';
}

const removed = (item: Record<string, unknown>, text: unknown) =>
  (typeof text === 'string' && GONE_TEXTS.has(text.trim())) ||
  stringOf(item.removed_by_category) !== undefined ||
  item.author === '[deleted]';

export function mapPost(value: unknown): CollectedItem {
  const thing = objectOf(value);
  const post = objectOf(thing?.data);
  const raw = rawOf(value);
  const name = stringOf(post?.name);
  const ref = permalinkUrl(post?.permalink) ?? name ?? '(no name)';
  if (!post || thing?.kind !== 't3' || !name) return { ref, reason: 'not a post (kind t3 with a name)', raw };
  if (removed(post, post.selftext)) return { ref, gone: { platform: 'reddit', external_id: name }, raw };
  const author = stringOf(post.author);
  const title = stringOf(post.title);
  if (!author || title === undefined) return { ref, reason: 'the post has no author or no title', raw };
  const selftext = stringOf(post.selftext);
  const domain = stringOf(post.domain);
  return {
    ref,
    raw,
    row: withoutEmpty({
      platform: 'reddit',
      external_id: name,
      author_external_id: stringOf(post.author_fullname) ?? author,
      author_handle: author,
      text: selftext ? `${title}\n\n${selftext}` : title,
      posted_at: isoOf(post.created_utc),
      kind: 'original',
      media: mediaOf(post),
      likes: score(post.score),
      comments: countOf(post.num_comments),
      url: permalinkUrl(post.permalink),
      ...(post.is_self !== true && domain && !domain.startsWith('self.') && { domains: [domain] }),
    }),
  };
}

/** A comment and its replies (to the depth Reddit answered), flattened; "more" stubs counted. */
export function mapComments(children: unknown[], items: CollectedItem[], more: { count: number }) {
  for (const child of children) {
    const thing = objectOf(child);
    const data = objectOf(thing?.data);
    if (thing?.kind === 'more') {
      more.count += countOf(data?.count) ?? 0;
      continue;
    }
    const raw = rawOf(child);
    const name = stringOf(data?.name);
    const ref = permalinkUrl(data?.permalink) ?? name ?? '(no name)';
    if (!data || thing?.kind !== 't1' || !name) {
      items.push({ ref, reason: 'not a comment (kind t1 with a name)', raw });
      continue;
    }
    if (removed(data, data.body)) items.push({ ref, gone: { platform: 'reddit', external_id: name }, raw });
    else {
      const author = stringOf(data.author);
      const body = stringOf(data.body);
      items.push(
        !author || body === undefined
          ? { ref, reason: 'the comment has no author or no body', raw }
          : {
              ref,
              raw,
              row: withoutEmpty({
                platform: 'reddit',
                external_id: name,
                author_external_id: stringOf(data.author_fullname) ?? author,
                author_handle: author,
                text: body,
                posted_at: isoOf(data.created_utc),
                kind: 'reply',
                media: 'text',
                likes: score(data.score),
                url: permalinkUrl(data.permalink),
              }),
            },
      );
    }
    const replies = objectOf(objectOf(data?.replies)?.data)?.children;
    if (Array.isArray(replies)) mapComments(replies, items, more);
  }
}
