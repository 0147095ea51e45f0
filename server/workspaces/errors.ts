// The workspace domain's error values; codes are stable, the SPA may branch on them.
import { ApiError } from '@server/errors';
import { TRIAL_WORKSPACES_PER_PERSON } from '@contract/workspaces';

/** Non-members get the same answer as for a workspace that does not exist, so ids reveal nothing. */
export const workspaceNotFound = () =>
  new ApiError(404, 'workspace_not_found', 'This workspace does not exist or you are not a member of it.');

export const memberNotFound = () => new ApiError(404, 'member_not_found', 'This person is not a member.');

export const denied = (code: string, message: string) => new ApiError(403, code, message);

/** Below a route's minimum privilege (see route-access.ts); every refusal is 403 forbidden, worded per domain. */
export const settingsDenied = () =>
  denied('forbidden', 'Only owners and managers can change workspace settings.');
export const membersDenied = () => denied('forbidden', 'Viewers cannot manage members.');

export const ownerProtected = () => denied('owner_required', 'Only an owner can change or remove an owner.');

export const lastOwner = () =>
  new ApiError(409, 'last_owner', 'A workspace needs at least one owner: make someone else an owner first.');

/** Creating a workspace while owning TRIAL_WORKSPACES_PER_PERSON on a running trial. */
export const trialLimit = () =>
  new ApiError(
    409,
    'trial_limit',
    `You already own ${TRIAL_WORKSPACES_PER_PERSON} workspaces on a free trial. Move one to a paid plan, or wait for a trial to end, before creating another.`,
  );
