// A post's page: its text with the view's query terms marked, its metrics, its author (a link to their page), which
// of the query's terms it matched (as the search matched them, from the server), and the thread it belongs to as far
// as the corpus knows. Opened from discover or a dashboard with the view's scope; a back link returns there.
import { useMemo } from 'react';
import { useParams, useSearch } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { postDetailQuery } from '@/api/insights';
import { apiProblem } from '@/api/errors';
import type { PostDetailResponse } from '@contract/social-detail';
import { EmptyState } from '@/components/PageFrame';
import { PostSentiment } from '@/components/PostSentiment';
import { PostTagList, PostTags } from '@/components/PostTags';
import { HighlightedText } from '@/components/query-editor/HighlightedText';
import { termPatterns } from '@/components/query-editor/match-terms';
import { useApp } from '@/components/use-app';
import { platformName } from '@/lib/platforms';
import { DashboardFrame, InsightFailure, InsightPending } from './DashboardFrame';
import { BackLink, ProfileLink } from './DetailLinks';
import { parseCorpusId } from './detail-search';
import { formatDateTime } from '@/lib/date-time';
import { formatCompact, formatDecimal, formatWhole } from './insight-format';
import { useInsightView } from './insight-view';

const ROUTE = '/_authed/workspace/$workspaceId/insight/post/$postId';

export function PostDetailPage() {
  const { api } = useApp();
  const { workspaceId, scope } = useInsightView();
  const { postId } = useParams({ from: ROUTE });
  const { back } = useSearch({ from: ROUTE });
  const id = parseCorpusId(postId);
  const result = useQuery({
    ...postDetailQuery(api, {
      workspace_id: workspaceId,
      post_id: id ?? 0,
      ...(scope.savedQueryId ? { saved_query_id: scope.savedQueryId } : { query: scope.q }),
    }),
    enabled: id !== null,
  });
  return (
    <DashboardFrame
      title="Post"
      description="One post: its text, metrics and author, and which terms of the view's query it matches."
      actions={<BackLink back={back} authorId={result.data?.post.author.id} />}
    >
      {id === null || (result.error && apiProblem(result.error).status === 404) ? (
        <EmptyState title="There is no such post">
          {id === null
            ? 'This address does not name a post.'
            : 'It does not exist, or it is older than the plan keeps. A bigger plan (Settings › Plan) keeps more history.'}
        </EmptyState>
      ) : result.error ? (
        <InsightFailure error={result.error} />
      ) : result.data ? (
        <PostDetailBody data={result.data} />
      ) : (
        <InsightPending result={result} cards={2} />
      )}
    </DashboardFrame>
  );
}

function PostDetailBody({ data }: { data: PostDetailResponse }) {
  const { post, time_zone: timeZone, matched } = data;
  const { author } = post;
  const patterns = useMemo(() => termPatterns(matched?.query ?? ''), [matched?.query]);
  const { back } = useSearch({ from: ROUTE });
  const { workspaceId } = useParams({ from: ROUTE });
  const correction = post.sentiment_correction ?? null;
  return (
    <div className="detail-grid">
      <article className="post-card post-detail" aria-labelledby="post-author">
        <header className="post-meta">
          <span className="post-author" id="post-author">
            <ProfileLink profile={author} back={back === 'profile' || !back ? 'overview' : back} />{' '}
            <span className="muted">
              @{author.handle}
              {author.verified ? ' · verified' : ''} · {formatCompact(author.followers)} followers
            </span>
          </span>
          <span className="badge">{platformName(post.platform)}</span>
          <time dateTime={post.posted_at} className="muted small">
            {formatDateTime(post.posted_at, timeZone)}
          </time>
        </header>
        <p className="post-text">
          <HighlightedText text={post.text} patterns={patterns} />
        </p>
        <p className="post-facts small">
          <PostSentiment post={post} timeZone={timeZone} workspaceId={workspaceId} full />
          {post.url ? (
            <a href={post.url} target="_blank" rel="noreferrer noopener">
              Open on {platformName(post.platform)}
            </a>
          ) : null}
        </p>
        <div className="post-facts small">
          <PostTagList postId={post.id} workspaceId={workspaceId} />
          <PostTags post={post} workspaceId={workspaceId} />
        </div>
      </article>

      <section className="detail-card" aria-labelledby="post-metrics">
        <h2 id="post-metrics">Metrics</h2>
        <dl className="facts">
          <Fact label="Engagement" value={formatWhole(post.engagement)} note="likes + comments + shares" />
          <Fact label="Likes" value={formatWhole(post.likes)} />
          <Fact label="Comments" value={formatWhole(post.comments)} />
          <Fact label="Shares" value={formatWhole(post.shares)} />
          <Fact label="Views" value={post.views === null ? 'not reported' : formatWhole(post.views)} />
          {correction ? (
            <Fact
              label="Sentiment (corrected)"
              value={post.sentiment_label}
              note={`counted in this workspace; estimate: ${correction.estimated_label} (${formatDecimal(correction.estimated_sentiment)})`}
            />
          ) : post.sentiment_explanation?.rated === false ? (
            <Fact
              label="Sentiment"
              value="not rated"
              note={`too little text to tell; counted as ${post.sentiment_label} in the figures`}
            />
          ) : (
            <Fact
              label="Sentiment (estimate)"
              value={`${post.sentiment_label} (${formatDecimal(post.sentiment)})`}
              note="from the sentiment model (a word list for the languages it lacks); it can miss sarcasm and context"
            />
          )}
          <Fact label="Kind" value={post.kind} />
          <Fact label="Media" value={post.media} />
          <Fact label="Language" value={post.language ?? 'unknown'} />
          <Fact label="Hashtags" value={list(post.hashtags.map((tag) => `#${tag}`))} />
          <Fact label="Mentions" value={list(post.mentions.map((handle) => `@${handle}`))} />
          <Fact label="Links to" value={list(post.domains)} />
          <Fact label={`Id on ${platformName(post.platform)}`} value={post.external_id} />
        </dl>
      </section>

      <section className="detail-card" aria-labelledby="post-terms">
        <h2 id="post-terms">Query terms</h2>
        <MatchedTerms matched={matched} />
      </section>

      <section className="detail-card" aria-labelledby="post-thread">
        <h2 id="post-thread">Thread</h2>
        <p>
          {post.kind === 'reply' || post.kind === 'quote'
            ? `This post is a ${post.kind}. The post it answers: not known — the corpus does not record it.`
            : `This post is ${post.kind === 'repost' ? 'a repost' : 'an original post'}. The thread it answers, if any: not known — the corpus does not record it.`}
        </p>
      </section>
    </div>
  );
}

const list = (items: readonly string[]) => (items.length ? items.join(', ') : 'none');

function Fact({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <div className="fact">
      <dt>{label}</dt>
      <dd>
        {value}
        {note ? <span className="small muted"> ({note})</span> : null}
      </dd>
    </div>
  );
}

function MatchedTerms({ matched }: { matched: PostDetailResponse['matched'] }) {
  if (!matched) {
    return (
      <p className="muted">
        This view has no query: every post is in it. Choose a saved query or type one in the scope bar to see
        which of its terms this post matches.
      </p>
    );
  }
  return (
    <>
      <p>
        {matched.matches ? 'This post matches the query ' : 'This post does not match the query '}
        <code>{matched.query}</code> (its text, hashtags, mentions and fields; the date range and filters are
        not checked here).
      </p>
      <ul className="matched-terms" aria-label="The query's terms">
        {matched.terms.map((term) => (
          <li key={`${term.negated ? '-' : '+'}${term.term}`} className={term.matched ? 'hit' : 'miss'}>
            <span aria-hidden="true">{term.matched ? '✓' : '✗'}</span> <code>{term.term}</code>
            <span className="small muted">
              {term.negated
                ? term.matched
                  ? ' — present, and excluded by NOT'
                  : ' — absent, as NOT asks'
                : term.matched
                  ? ' — matched'
                  : ' — not matched'}
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}
