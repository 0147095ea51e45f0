// Who may do what inside a workspace. Every rule is a pure function of privileges, so the routes read like the rules
// and the tests can check them without a database.
import type { Privilege } from '@contract/workspaces';
import type { ApiError } from '@server/errors';
import { lastOwner, membersDenied, ownerProtected } from './errors';

const rank: Record<Privilege, number> = { owner: 3, manager: 2, viewer: 1 };

/** Whether a privilege is the minimum or above (the routes declare their minimum: see route-access.ts). */
export const atLeast = (privilege: Privilege, minimum: Privilege) => rank[privilege] >= rank[minimum];

const isOwner = (privilege: Privilege) => privilege === 'owner';

/** Owners and managers run the workspace; viewers only look. */
const canManageMembers = (actor: Privilege) => atLeast(actor, 'manager');

/**
 * An invite link can be forwarded, so it grants less than a direct promotion: managers hand out viewer links only,
 * owners viewer or manager links, and ownership is never granted by link.
 */
export function invitablePrivileges(actor: Privilege): Privilege[] {
  if (actor === 'owner') return ['viewer', 'manager'];
  if (actor === 'manager') return ['viewer'];
  return [];
}

const isLastOwner = (target: Privilege, ownerCount: number) => target === 'owner' && ownerCount <= 1;

/** Null when allowed; otherwise the error to answer with. */
export function checkPrivilegeChange(
  actor: Privilege,
  target: Privilege,
  next: Privilege,
  ownerCount: number,
): ApiError | null {
  if (!canManageMembers(actor)) return membersDenied();
  if (!isOwner(actor) && (isOwner(target) || isOwner(next))) return ownerProtected();
  if (next !== 'owner' && isLastOwner(target, ownerCount)) return lastOwner();
  return null;
}

export function checkRemoval(actor: Privilege, target: Privilege, ownerCount: number): ApiError | null {
  if (!canManageMembers(actor)) return membersDenied();
  if (!isOwner(actor) && isOwner(target)) return ownerProtected();
  if (isLastOwner(target, ownerCount)) return lastOwner();
  return null;
}

export function checkLeave(self: Privilege, ownerCount: number): ApiError | null {
  return isLastOwner(self, ownerCount) ? lastOwner() : null;
}
