// Correcting a post's sentiment in a workspace (internal API; contract/sentiment-corrections.ts), and what a
// correction makes stale: every figure and post list of that workspace.
import type { QueryClient } from '@tanstack/react-query';
import { sentimentCorrectionResponseSchema } from '@contract/sentiment-corrections';
import type { SocialPost } from '@contract/social-posts';
import type { Api } from './api';

type Label = SocialPost['sentiment_label'];

const sentimentPath = (workspaceId: string, postId: number) =>
  `workspaces/${encodeURIComponent(workspaceId)}/posts/${postId}/sentiment`;

/** Set the post's sentiment in the workspace (label), or undo the correction (null). */
export const correctSentiment = (api: Api, workspaceId: string, postId: number, label: Label | null) =>
  api.send(
    sentimentPath(workspaceId, postId),
    sentimentCorrectionResponseSchema,
    label === null ? { method: 'DELETE' } : { method: 'PUT', body: { label } },
  );

/** The workspace's dashboards, post and profile pages and discover's searches: they count or show sentiment. */
const COUNTING = new Set(['insights', 'posts', 'profiles', 'discover']);

export const refreshAfterCorrection = (queryClient: QueryClient, workspaceId: string) =>
  queryClient.invalidateQueries({
    predicate: ({ queryKey }) =>
      queryKey[0] === 'workspaces' && queryKey[1] === workspaceId && COUNTING.has(String(queryKey[2])),
  });
