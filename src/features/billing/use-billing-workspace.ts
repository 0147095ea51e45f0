import { useParams } from '@tanstack/react-router';
import { useSuspenseQuery } from '@tanstack/react-query';
import { workspaceQuery } from '@/api/queries';
import { useApp } from '@/components/use-app';

/** The plan and billing pages' workspace (its privilege decides what they offer); the route's loader cached it. */
export function useBillingWorkspace() {
  const { workspaceId } = useParams({ from: '/_authed/workspace/$workspaceId' });
  const { api } = useApp();
  const workspace = useSuspenseQuery(workspaceQuery(api, workspaceId)).data;
  return { workspaceId, workspace };
}
