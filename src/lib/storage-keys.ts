// Local-storage keys of the spec (§3): one place, shared by the session, the guards and the tests.
export const AUTH_TOKENS_KEY = 'auth_tokens';
export const WORKSPACE_CREATION_KEY = 'workspaceCreation';
const LAST_WORKSPACE_SUFFIX = '_last_workspace_id';

export const lastWorkspaceKey = (userId: string | number): string => `${userId}${LAST_WORKSPACE_SUFFIX}`;
