// Why an invite or join code was refused; the SPA shows 'Invalid invite token' for all of them (spec §8).
import { ApiError } from '@server/errors';

export const inviteInvalid = () => new ApiError(404, 'invite_invalid', 'This invite link is not valid.');
export const inviteRevoked = () => new ApiError(410, 'invite_revoked', 'This invite link has been revoked.');
export const inviteExpired = () => new ApiError(410, 'invite_expired', 'This invite link has expired.');
export const inviteUsedUp = () =>
  new ApiError(410, 'invite_used_up', 'This invite link has been used as often as it allows.');
export const inviteNotFound = () =>
  new ApiError(404, 'invite_not_found', 'No such invite in this workspace.');
export const joinCodeInvalid = () => new ApiError(404, 'join_code_invalid', 'This join code is not valid.');
/** Too many wrong codes near it (server/invites/guessing.ts): refused even when right, until it is rotated. */
export const joinCodeLocked = () =>
  new ApiError(
    410,
    'join_code_locked',
    'This join code was locked after too many wrong attempts. ' +
      'Ask an owner or manager of the workspace for the new code.',
  );
/** Below the routes' minimum (managers; see server/workspaces/route-access.ts). */
export const invitesDenied = () =>
  new ApiError(403, 'forbidden', 'Only owners and managers can manage invites.');
export const joinCodeDenied = () =>
  new ApiError(403, 'forbidden', 'Only owners and managers can see or rotate the join code.');
export const staffOnly = () =>
  new ApiError(403, 'staff_only', 'Only staff accounts can join the internal workspace.');
export const rateLimited = (after: string) =>
  new ApiError(429, 'rate_limited', `Too many attempts. Try again in ${after}.`);
/** The account's wrong codes of the day are spent (server/invites/guessing.ts). */
export const joinCodeMissesSpent = (seconds: number) => {
  const hours = Math.ceil(seconds / 3600);
  const minutes = Math.ceil(seconds / 60);
  const after = seconds > 3600 ? `${hours} hours` : minutes > 1 ? `${minutes} minutes` : '1 minute';
  return new ApiError(429, 'rate_limited', `Too many wrong join codes. Try again in ${after}.`);
};
