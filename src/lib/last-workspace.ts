// The last-used workspace per user (spec §3): key `{userId}_last_workspace_id`.
import { lastWorkspaceKey } from './storage-keys';

export function readLastWorkspace(userId: string, storage: Storage = localStorage): string | null {
  return storage.getItem(lastWorkspaceKey(userId));
}

export function rememberLastWorkspace(
  userId: string,
  workspaceId: string,
  storage: Storage = localStorage,
): void {
  storage.setItem(lastWorkspaceKey(userId), workspaceId);
}
