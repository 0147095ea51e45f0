// A post's sentiment on its card and its page: the estimate with how sure the model is and why (the words that pushed
// it, behind a "Why?" button on cards, listed on the post's page; docs/sentiment.md#explanations), "not rated" for a
// text too short to tell, or the workspace's correction with who made it and when instead of the model's reasons (a
// post with the same text as a corrected one inherits its correction and says so). Owners and managers can correct it
// (positive, neutral, negative) or undo their correction of it (an inherited one is undone on the corrected post). A
// correction counts in every figure of the workspace, so every dashboard, list and search of it is read again
// afterwards.
import { useId, useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { SENTIMENT_VALUES, type SocialPost } from '@contract/social-posts';
import { apiProblem } from '@/api/errors';
import { workspaceQuery } from '@/api/queries';
import { correctSentiment, refreshAfterCorrection } from '@/api/sentiment';
import { formatDate } from '@/lib/date-time';
import { showToast } from '@/lib/toast';
import { SentimentEstimate } from './SentimentEstimate';
import { useApp } from './use-app';

type Label = SocialPost['sentiment_label'];

const capital = (label: Label) => label[0]!.toUpperCase() + label.slice(1);

export function PostSentiment({
  post,
  timeZone,
  workspaceId,
  full = false,
}: {
  post: SocialPost;
  timeZone: string;
  /** The workspace the post is shown in; without it the estimate is shown and cannot be corrected. */
  workspaceId?: string;
  /** The post's page: the reasons listed, not behind a button. */
  full?: boolean;
}) {
  const correction = post.sentiment_correction ?? null;
  return (
    <>
      {correction ? (
        <span className="post-sentiment corrected">
          Sentiment: {post.sentiment_label}{' '}
          <strong>
            · Corrected by your team
            {correction.inherited_from != null ? ' (same text as a corrected post)' : ''}
          </strong>{' '}
          <span className="muted">
            ({correction.corrected_by ?? 'a former member'} on {formatDate(correction.corrected_at, timeZone)}
            ; estimate: {correction.estimated_label})
          </span>
        </span>
      ) : (
        <SentimentEstimate post={post} full={full} />
      )}
      {workspaceId ? <CorrectSentiment post={post} workspaceId={workspaceId} /> : null}
    </>
  );
}

/** The correction control, for owners and managers of the workspace (the server checks it too). */
function CorrectSentiment({ post, workspaceId }: { post: SocialPost; workspaceId: string }) {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const workspace = useQuery(workspaceQuery(api, workspaceId)).data;
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const groupId = useId();
  // Corrected itself, not only through a post with the same text: only then is there a correction here to undo.
  const corrected = Boolean(post.sentiment_correction) && post.sentiment_correction?.inherited_from == null;
  const save = useMutation({
    mutationFn: (label: Label | null) => correctSentiment(api, workspaceId, post.id, label),
    onSuccess: async (answer) => {
      setOpen(false);
      toggle.current?.focus();
      showToast(
        'success',
        answer.corrected_at
          ? `Sentiment set to ${answer.label} in this workspace`
          : `Correction undone: the estimate (${answer.label}) counts again`,
      );
      await refreshAfterCorrection(queryClient, workspaceId);
    },
    onError: (error) => showToast('error', apiProblem(error).message),
  });
  if (workspace?.privilege !== 'owner' && workspace?.privilege !== 'manager') return null;
  return (
    <span className="sentiment-correction">
      <button
        ref={toggle}
        type="button"
        className="link-button"
        aria-expanded={open}
        aria-controls={groupId}
        onClick={() => setOpen((o) => !o)}
      >
        Correct sentiment
      </button>
      {open ? (
        <span
          id={groupId}
          role="group"
          aria-label={`Sentiment of the post by @${post.author.handle}`}
          className="sentiment-choices"
        >
          {SENTIMENT_VALUES.map((label) => {
            const current = label === post.sentiment_label;
            return (
              <button
                key={label}
                type="button"
                aria-pressed={current}
                disabled={save.isPending}
                onClick={() => (current && corrected ? setOpen(false) : save.mutate(label))}
              >
                {capital(label)}
              </button>
            );
          })}
          {corrected ? (
            <button type="button" disabled={save.isPending} onClick={() => save.mutate(null)}>
              Undo correction
            </button>
          ) : null}
        </span>
      ) : null}
    </span>
  );
}
