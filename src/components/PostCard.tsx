// A post as discover, the dashboards and the query preview list it: author, platform, time in the workspace's zone,
// the text with the query's terms marked, the workspace's tags it carries, kind, media, engagement, and sentiment
// stated as an estimate or as the workspace's correction. With `links`, the author's name opens their profile's page
// and the card its post's page (a click anywhere but on a control, or the "Post details" link from the
// keyboard), and owners and managers can correct the post's sentiment and set its tags by hand.
import type { MouseEvent } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import type { SocialPost } from '@contract/social-posts';
import { formatCompactNumber } from '@/lib/compact-number';
import { formatDateTime } from '@/lib/date-time';
import { platformName } from '@/lib/platforms';
import { PostSentiment } from './PostSentiment';
import { PostTagChips, PostTags } from './PostTags';
import { HighlightedText } from './query-editor/HighlightedText';

/** Where a card's links go: the workspace, and the search params the post's and profile's pages get (the scope). */
export interface DetailLinks {
  workspaceId: string;
  search: Record<string, string | undefined>;
}

const POST_PAGE = '/workspace/$workspaceId/insight/post/$postId';
const PROFILE_PAGE = '/workspace/$workspaceId/insight/profile/$profileId';

export function PostCard({
  post,
  timeZone,
  patterns,
  compact = false,
  links,
}: {
  post: SocialPost;
  timeZone: string;
  patterns: readonly string[];
  compact?: boolean;
  links?: DetailLinks;
}) {
  const { author } = post;
  const navigate = useNavigate();
  const postLink = links && {
    to: POST_PAGE,
    params: { workspaceId: links.workspaceId, postId: String(post.id) },
    search: links.search as never,
  };
  // The mouse's way in: a click on the card's text opens the post, unless it selected text or hit a control (a link,
  // a button, or a box of the Tags control and its label).
  const open = (event: MouseEvent<HTMLElement>) => {
    if (!postLink || (event.target as HTMLElement).closest('a, button, input, label, fieldset')) return;
    if (window.getSelection()?.toString()) return;
    void navigate(postLink);
  };
  const name = <strong>{author.display_name}</strong>;
  return (
    <article
      className={`post-card${compact ? ' compact' : ''}${links ? ' linked' : ''}`}
      aria-label={`Post by @${author.handle}`}
      onClick={links ? open : undefined}
    >
      <header className="post-meta">
        <span className="post-author">
          {links ? (
            <Link
              to={PROFILE_PAGE}
              params={{ workspaceId: links.workspaceId, profileId: String(author.id) }}
              search={links.search as never}
              aria-label={`Profile of ${author.display_name} (@${author.handle})`}
            >
              {name}
            </Link>
          ) : (
            name
          )}{' '}
          <span className="muted">@{author.handle}</span>
          {author.verified ? (
            <span className="badge" title="Verified account">
              ✓
            </span>
          ) : null}
        </span>
        <span className="badge">{platformName(post.platform)}</span>
        <time dateTime={post.posted_at} className="muted small">
          {formatDateTime(post.posted_at, timeZone)}
        </time>
      </header>
      <p className="post-text">
        <HighlightedText text={post.text} patterns={patterns} />
      </p>
      <PostTagChips post={post} workspaceId={links?.workspaceId} />
      <footer className="post-facts small muted">
        <span>{post.kind}</span>
        <span>{post.media}</span>
        {post.language ? <span>{post.language}</span> : null}
        <span title={`${post.likes} likes, ${post.comments} comments, ${post.shares} shares`}>
          {formatCompactNumber(post.engagement)} engagement
        </span>
        {post.views !== null ? <span>{formatCompactNumber(post.views)} views</span> : null}
        <PostSentiment post={post} timeZone={timeZone} workspaceId={links?.workspaceId} />
        {links ? <PostTags post={post} workspaceId={links.workspaceId} /> : null}
        {postLink ? (
          <Link {...postLink} aria-label={`Post details (@${author.handle})`}>
            Post details
          </Link>
        ) : null}
        {post.url ? (
          <a href={post.url} target="_blank" rel="noreferrer noopener">
            Open on {platformName(post.platform)}
          </a>
        ) : null}
      </footer>
    </article>
  );
}
