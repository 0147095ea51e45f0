// Tagging every post of a list, not only its page (issue 55, item 3), beside "Tag several posts" (TagPosts.tsx): the
// chosen tag set by hand on every post the list's scope holds (its query, filters and refinements), or removed from
// them, in one call (POST /social/insights/tag-posts) that the server writes a batch at a time. A confirmation names the
// count and the tag first; while the batches are written it shows how many are done.
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { InsightsBody } from '@contract/insights';
import type { TagListProgress } from '@contract/tags';
import { apiProblem } from '@/api/errors';
import { ListTaggingStopped, setListTag } from '@/api/tags';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import { formatPosts } from './insight-format';
import { useInsightView } from './insight-view';

const failure = (error: unknown) =>
  error instanceof ListTaggingStopped ? error.message : apiProblem(error).message;

export function TagWholeList({
  body,
  total,
  tag,
}: {
  /** The list's request, as its pages are asked for. */
  body: InsightsBody;
  /** The list's posts (its total when its page was read). */
  total: number;
  tag: { id: string; name: string };
}) {
  const { api } = useApp();
  const { workspaceId } = useInsightView();
  const queryClient = useQueryClient();
  /** Set while the confirmation is open: whether the tag is to be set (true) or removed. */
  const [asked, setAsked] = useState<boolean | null>(null);
  const [progress, setProgress] = useState<TagListProgress | null>(null);
  const run = useMutation({
    mutationFn: (tagged: boolean) => setListTag(api, { ...body, tag_id: tag.id, tagged }, setProgress),
    onSuccess: async (done, tagged) => {
      showToast(
        'success',
        tagged
          ? `Tagged ${tag.name} on all ${formatPosts(done.total)}: ${formatPosts(done.changed)} changed`
          : `Tag ${tag.name} removed from all ${formatPosts(done.total)}: ${formatPosts(done.changed)} changed`,
      );
      setAsked(null);
      await Promise.all(
        (['tag-categories', 'post-tags', 'insights'] as const).map((part) =>
          queryClient.invalidateQueries({ queryKey: ['workspaces', workspaceId, part] }),
        ),
      );
    },
  });
  if (!total) return null;
  const ask = (tagged: boolean) => {
    run.reset();
    setProgress(null);
    setAsked(tagged);
  };
  const posts = formatPosts(total);
  return (
    <>
      <button type="button" className="button small" onClick={() => ask(true)}>
        Tag all {posts} of the list
      </button>
      <button type="button" className="button small" onClick={() => ask(false)}>
        Remove the tag from all {posts} of the list
      </button>
      {asked !== null ? (
        <ConfirmDialog
          title={asked ? `Tag all ${posts} with ${tag.name}?` : `Remove ${tag.name} from all ${posts}?`}
          confirmLabel={asked ? `Tag ${posts}` : `Remove from ${posts}`}
          pendingLabel={asked ? 'Tagging…' : 'Removing…'}
          destructive={!asked}
          pending={run.isPending}
          error={run.isError ? failure(run.error) : null}
          onConfirm={() => run.mutate(asked)}
          onCancel={() => setAsked(null)}
        >
          <p>
            Every post of this list (its query, filters and refinements), not only this page,{' '}
            {asked
              ? 'is tagged by hand.'
              : 'loses the tag by hand: rules matching these posts will not set it again.'}
          </p>
          {run.isPending && progress ? (
            <p>
              <progress
                value={progress.done}
                max={Math.max(progress.total, 1)}
                aria-label={asked ? 'Posts tagged' : 'Posts untagged'}
              />{' '}
              {progress.done.toLocaleString('en-US')} of {formatPosts(progress.total)}
            </p>
          ) : null}
        </ConfirmDialog>
      ) : null}
    </>
  );
}
