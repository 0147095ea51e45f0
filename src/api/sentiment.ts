// Correcting a post's sentiment in a workspace (internal API; contract/sentiment-corrections.ts), what a correction
// makes stale (every figure and post list of that workspace, and how the scoring agrees with the corrections), and
// that agreement's query.
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import {
  sentimentAgreementResponseSchema,
  sentimentCorrectionResponseSchema,
} from '@contract/sentiment-corrections';
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

/**
 * The workspace's dashboards, post and profile pages and discover's searches, which count or show sentiment, and the
 * agreement with the corrections Settings shows.
 */
const COUNTING = new Set(['insights', 'posts', 'profiles', 'discover', 'sentiment-agreement']);

export const refreshAfterCorrection = (queryClient: QueryClient, workspaceId: string) =>
  queryClient.invalidateQueries({
    predicate: ({ queryKey }) =>
      queryKey[0] === 'workspaces' && queryKey[1] === workspaceId && COUNTING.has(String(queryKey[2])),
  });

/** How often the model agrees with the workspace's corrections (Settings; any member). */
export const sentimentAgreementQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'sentiment-agreement'] as const,
    queryFn: ({ signal }) =>
      api.send(
        `workspaces/${encodeURIComponent(workspaceId)}/sentiment-agreement`,
        sentimentAgreementResponseSchema,
        { method: 'GET', signal },
      ),
    staleTime: 30_000,
  });
