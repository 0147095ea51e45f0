import { useParams } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { meQuery, workspaceQuery } from '../../api/queries';
import { useApp } from '../../components/use-app';

/** The settings pages' workspace (its privilege decides what the page offers) and the signed-in user. */
export function useWorkspace() {
  const { workspaceId = '' } = useParams({ strict: false });
  const { api } = useApp();
  const workspace = useQuery(workspaceQuery(api, workspaceId));
  const me = useQuery(meQuery(api));
  return { workspaceId, workspace, me };
}
