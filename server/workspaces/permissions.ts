// Who may do what inside a workspace. Every rule is a pure function of privileges, so the routes read like the rules
// and the tests can check them without a database.
import type { Privilege } from '../../src/contract/workspaces';
import type { ApiError } from '../errors';
import { denied, lastOwner } from './errors';

const rank: Record<Privilege, number> = { owner: 3, manager: 2, viewer: 1 };

export const isOwner = (privilege: Privilege) => privilege === 'owner';

/** Owners and managers run the workspace; viewers only look. */
export const canEditWorkspace = (actor: Privilege) => rank[actor] >= rank.manager;
export const canManageMembers = canEditWorkspace;
export const canManageInvites = canEditWorkspace;

/**
 * An invite link can be forwarded, so it grants less than a direct promotion: managers hand out viewer links only,
 * owners viewer or manager links, and ownership is never granted by link.
 */
export function invitablePrivileges(actor: Privilege): Privilege[] {
  if (actor === 'owner') return ['viewer', 'manager'];
  if (actor === 'manager') return ['viewer'];
  return [];
}

export const isLastOwner = (target: Privilege, ownerCount: number) => target === 'owner' && ownerCount <= 1;

const viewerDenied = () => denied('forbidden', 'Viewers cannot manage members.');
const ownerProtected = () => denied('owner_required', 'Only an owner can change or remove an owner.');

/** Null when allowed; otherwise the error to answer with. */
export function checkPrivilegeChange(
  actor: Privilege,
  target: Privilege,
  next: Privilege,
  ownerCount: number,
): ApiError | null {
  if (!canManageMembers(actor)) return viewerDenied();
  if (!isOwner(actor) && (isOwner(target) || isOwner(next))) return ownerProtected();
  if (next !== 'owner' && isLastOwner(target, ownerCount)) return lastOwner();
  return null;
}

export function checkRemoval(actor: Privilege, target: Privilege, ownerCount: number): ApiError | null {
  if (!canManageMembers(actor)) return viewerDenied();
  if (!isOwner(actor) && isOwner(target)) return ownerProtected();
  if (isLastOwner(target, ownerCount)) return lastOwner();
  return null;
}

export function checkLeave(self: Privilege, ownerCount: number): ApiError | null {
  return isLastOwner(self, ownerCount) ? lastOwner() : null;
}
