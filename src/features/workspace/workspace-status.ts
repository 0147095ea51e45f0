// A workspace's state as its pages read it.
import type { WorkspaceResponse } from '../../contract/workspaces';

/** As the workspace guard's step 4 reads it (spec §4): plan_expired_at, in seconds, in the past. */
export const isPlanExpired = (workspace: Pick<WorkspaceResponse, 'plan_expired_at'>, now = Date.now()) =>
  workspace.plan_expired_at !== null && workspace.plan_expired_at * 1000 < now;
