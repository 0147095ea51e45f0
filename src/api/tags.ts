// Calls of a workspace's categories and tags (internal API: categories with their tags and rules; create, rename and
// delete; rules added, changed and deleted; a tag set or removed on posts by hand; a post's tags), then queryOptions.
import { queryOptions } from '@tanstack/react-query';
import * as z from 'zod/mini';
import {
  categoriesResponseSchema,
  categoryResponseSchema,
  postTagsResponseSchema,
  tagPostsResponseSchema,
  tagResponseSchema,
  tagRuleResponseSchema,
} from '@contract/tags';
import type { Api } from './api';

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

export const tagCategoriesQuery = (api: Api, workspaceId: string) =>
  queryOptions({
    queryKey: ['workspaces', workspaceId, 'tag-categories'] as const,
    queryFn: ({ signal }) =>
      api.send(`${base(workspaceId)}/tag-categories`, categoriesResponseSchema, { method: 'GET', signal }),
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
