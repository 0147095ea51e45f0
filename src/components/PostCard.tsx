// A post as discover and the query preview list it: author, platform, time in the workspace's zone, the text with the
// query's terms marked, kind, media, engagement, and sentiment stated as an estimate.
import type { SocialPost } from '../contract/social-posts';
import { formatCompactNumber } from '../lib/compact-number';
import { formatDateTime } from '../lib/date-time';
import { platformName } from '../lib/platforms';
import { HighlightedText } from './query-editor/HighlightedText';

export function PostCard({
  post,
  timeZone,
  patterns,
  compact = false,
}: {
  post: SocialPost;
  timeZone: string;
  patterns: readonly string[];
  compact?: boolean;
}) {
  const { author } = post;
  return (
    <article className={compact ? 'post-card compact' : 'post-card'} aria-label={`Post by @${author.handle}`}>
      <header className="post-meta">
        <span className="post-author">
          <strong>{author.display_name}</strong> <span className="muted">@{author.handle}</span>
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
      <footer className="post-facts small muted">
        <span>{post.kind}</span>
        <span>{post.media}</span>
        {post.language ? <span>{post.language}</span> : null}
        <span title={`${post.likes} likes, ${post.comments} comments, ${post.shares} shares`}>
          {formatCompactNumber(post.engagement)} engagement
        </span>
        {post.views !== null ? <span>{formatCompactNumber(post.views)} views</span> : null}
        <span title="Estimated from a word list; it can miss sarcasm and context">
          Sentiment (estimate): {post.sentiment_label}
        </span>
        {post.url ? (
          <a href={post.url} target="_blank" rel="noreferrer noopener">
            Open on {platformName(post.platform)}
          </a>
        ) : null}
      </footer>
    </article>
  );
}
