// What a workspace's status pages show: the workspace's true state, read here, rather than what their address says.
import { HttpError } from '@/api/errors';
import type { WorkspaceResponse } from '@contract/workspaces';

/** As the workspace guard's step 4 reads it (spec §4): plan_expired_at, in seconds, in the past. */
export const isPlanExpired = (workspace: Pick<WorkspaceResponse, 'plan_expired_at'>, now = Date.now()) =>
  workspace.plan_expired_at !== null && workspace.plan_expired_at * 1000 < now;

export type WorkspaceState =
  | { kind: 'loading' }
  /** Not a member, or no such workspace: the server answers 403 or 404 alike. */
  | { kind: 'noAccess' }
  | { kind: 'failed'; error: unknown }
  | { kind: 'expired'; workspace: WorkspaceResponse }
  | { kind: 'open'; workspace: WorkspaceResponse };

export function workspaceState(query: {
  data: WorkspaceResponse | undefined;
  error: unknown;
  now?: number;
}): WorkspaceState {
  const { data, error } = query;
  if (data)
    return isPlanExpired(data, query.now)
      ? { kind: 'expired', workspace: data }
      : { kind: 'open', workspace: data };
  if (error instanceof HttpError && (error.status === 403 || error.status === 404))
    return { kind: 'noAccess' };
  if (error) return { kind: 'failed', error };
  return { kind: 'loading' };
}
