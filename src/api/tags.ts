// Calls of a workspace's categories and tags (internal API: categories with their tags and rules; create, rename and
// delete; rules added, changed and deleted; a tag set or removed on posts by hand; a post's tags), then queryOptions.
import { queryOptions } from '@tanstack/react-query';
import * as z from 'zod/mini';
import {
  categoriesResponseSchema,
  categoryResponseSchema,
  postTagsResponseSchema,
  tagPostsResponseSchema,
  tagListProgressSchema,
  tagCountsResponseSchema,
  tagResponseSchema,
  tagRuleResponseSchema,
  type TagListBody,
  type TagListProgress,
} from '@contract/tags';
import type { Api } from './api';
import { retryDelay, retryFigures } from './errors';

const base = (workspaceId: string) => `workspaces/${encodeURIComponent(workspaceId)}`;
const id = encodeURIComponent;

export const createCategory = (api: Api, workspaceId: string, name: string) =>
  api.send(`${base(workspaceId)}/tag-categories`, categoryResponseSchema, { method: 'POST', body: { name } });

export const deleteCategory = (api: Api, workspaceId: string, categoryId: string) =>
  api.send(`${base(workspaceId)}/tag-categories/${id(categoryId)}`, z.undefined(), { method: 'DELETE' });

export const createTag = (api: Api, workspaceId: string, categoryId: string, name: string) =>
  api.send(`${base(workspaceId)}/tag-categories/${id(categoryId)}/tags`, tagResponseSchema, {
    method: 'POST',
    body: { name },
  });

export const deleteTag = (api: Api, workspaceId: string, tagId: string) =>
  api.send(`${base(workspaceId)}/tags/${id(tagId)}`, z.undefined(), { method: 'DELETE' });

export const createRule = (api: Api, workspaceId: string, tagId: string, query: string) =>
  api.send(`${base(workspaceId)}/tags/${id(tagId)}/rules`, tagRuleResponseSchema, {
    method: 'POST',
    body: { query },
  });

export const deleteRule = (api: Api, workspaceId: string, ruleId: string) =>
  api.send(`${base(workspaceId)}/tag-rules/${id(ruleId)}`, z.undefined(), { method: 'DELETE' });

export const setPostsTag = (
  api: Api,
  workspaceId: string,
  tagId: string,
  postIds: number[],
  tagged: boolean,
) =>
  api.send(`${base(workspaceId)}/tags/${id(tagId)}/posts`, tagPostsResponseSchema, {
    method: 'POST',
    body: { post_ids: postIds, tagged },
  });

/** The answer broke off after some batches were written (those stay: asking again finishes the list). */
export class ListTaggingStopped extends Error {
  constructor(readonly progress: TagListProgress | null) {
    super(
      `Tagging stopped after ${(progress?.done ?? 0).toLocaleString('en-US')} of ` +
        `${progress ? progress.total.toLocaleString('en-US') : 'the'} posts. The posts tagged stay tagged: ` +
        'try again to finish the list.',
    );
  }
}

/**
 * Every post of a list tagged or untagged (POST /social/insights/tag-posts): `onProgress` after each batch written.
 * Resolves with the last progress; a refusal before any write is the HttpError, a break after it ListTaggingStopped.
 */
export async function setListTag(
  api: Api,
  body: TagListBody,
  onProgress: (progress: TagListProgress) => void,
): Promise<TagListProgress> {
  let last: TagListProgress | null = null;
  try {
    await api.streamSocial('insights/tag-posts', body, (line) => {
      const progress = z.parse(tagListProgressSchema, line);
      last = progress;
      onProgress(progress);
    });
  } catch (error) {
    if (last === null) throw error;
  }
  const end = last as TagListProgress | null;
  if (!end || end.done < end.total) throw new ListTaggingStopped(end);
  return end;
}

export const tagCategoriesQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'tag-categories'] as const,
    queryFn: ({ signal }) =>
      api.send(`${base(workspaceId)}/tag-categories`, categoriesResponseSchema, { method: 'GET', signal }),
  });

/** How many posts carry each tag (a figure: the social API's, from the analytics store). */
export const tagCountsQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'tag-categories', 'counts'] as const,
    queryFn: ({ signal }) =>
      api.sendSocial('insights/tag-counts', tagCountsResponseSchema, {
        method: 'POST',
        body: { workspace_id: workspaceId },
        signal,
      }),
    retry: retryFigures,
    retryDelay,
  });

export const postTagsQuery = (api: Api, workspaceId: string, postId: number) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'post-tags', postId] as const,
    queryFn: ({ signal }) =>
      api.send(`${base(workspaceId)}/posts/${postId}/tags`, postTagsResponseSchema, {
        method: 'GET',
        signal,
      }),
  });

export const renameCategory = (api: Api, workspaceId: string, categoryId: string, name: string) =>
  api.send(`${base(workspaceId)}/tag-categories/${id(categoryId)}`, z.undefined(), {
    method: 'PATCH',
    body: { name },
  });

export const renameTag = (api: Api, workspaceId: string, tagId: string, name: string) =>
  api.send(`${base(workspaceId)}/tags/${id(tagId)}`, z.undefined(), { method: 'PATCH', body: { name } });
