import { useParams } from '@tanstack/react-router';
import { useSuspenseQuery } from '@tanstack/react-query';
import { meQuery, workspaceQuery } from '@/api/queries';
import { useApp } from '@/components/use-app';

/**
 * The settings pages' workspace (its privilege decides what the page offers) and the signed-in user; the route's
 * loader has put both in the cache (src/routes/_authed/workspace/$workspaceId/settings/*).
 */
export function useWorkspace() {
  const { workspaceId } = useParams({ from: '/_authed/workspace/$workspaceId' });
  const { api } = useApp();
  const workspace = useSuspenseQuery(workspaceQuery(api, workspaceId)).data;
  const me = useSuspenseQuery(meQuery(api)).data;
  return { workspaceId, workspace, me };
}
