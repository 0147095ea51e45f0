// The workspace's tags by id, each named with its category ("Topic › Drinks"), as the counted sentence names them:
// what a `tag` refinement's chip and the By category card show instead of a tag's id.
import { useQuery } from '@tanstack/react-query';
import { tagLabel, type TagCategoriesResponse } from '@contract/tags';
import { tagCategoriesQuery } from '@/api/tags';
import { useApp } from '@/components/use-app';
import { useReadOnly } from './read-only';

function namesOf(data: TagCategoriesResponse): ReadonlyMap<string, string> {
  return new Map(
    data.categories.flatMap((category) =>
      category.tags.map((tag) => [tag.id, tagLabel(category.name, tag.name)]),
    ),
  );
}

/**
 * The workspace's tags' names by id (from GET /workspaces/{id}/tag-categories), read only when `wanted`; empty while
 * loading, on an error, and in a shared view (it knows nothing of the workspace).
 */
export function useTagNames(workspaceId: string, wanted: boolean): ReadonlyMap<string, string> {
  const { api } = useApp();
  const readOnly = useReadOnly();
  const result = useQuery({
    ...tagCategoriesQuery(api, workspaceId),
    enabled: wanted && !readOnly,
    select: namesOf,
  });
  return result.data ?? EMPTY;
}

const EMPTY: ReadonlyMap<string, string> = new Map();
