// Who may do what on the members page. Mirrors server/workspaces/permissions.ts so the page only offers what the
// server will accept; the server stays the judge (a refusal is still shown if the rules drift apart).
import type { Privilege } from '@contract/workspaces';

const PRIVILEGES: readonly Privilege[] = ['owner', 'manager', 'viewer'];

export const privilegeLabel: Record<Privilege, string> = {
  owner: 'Owner',
  manager: 'Manager',
  viewer: 'Viewer',
};

/** Owners and managers run the workspace; viewers only look. */
export const canManageMembers = (actor: Privilege) => actor === 'owner' || actor === 'manager';

const isLastOwner = (target: Privilege, ownerCount: number) => target === 'owner' && ownerCount <= 1;

/**
 * The roles the actor may give this member, the current one included; fewer than two means the role is fixed.
 * Managers cannot touch owners nor make anyone an owner; nobody demotes the last owner.
 */
export function assignableRoles(actor: Privilege, target: Privilege, ownerCount: number): Privilege[] {
  if (!canManageMembers(actor)) return [target];
  if (actor !== 'owner' && target === 'owner') return [target];
  if (isLastOwner(target, ownerCount)) return [target];
  return actor === 'owner' ? [...PRIVILEGES] : ['manager', 'viewer'];
}

/** Removing someone else; people leave on their own with "Leave workspace". */
export function canRemove(actor: Privilege, target: Privilege, ownerCount: number, isSelf: boolean): boolean {
  if (isSelf || !canManageMembers(actor)) return false;
  if (actor !== 'owner' && target === 'owner') return false;
  return !isLastOwner(target, ownerCount);
}

export const canLeave = (self: Privilege, ownerCount: number) => !isLastOwner(self, ownerCount);

/** An invite link can be forwarded, so it grants less: owners hand out viewer or manager links, managers viewer. */
export function invitableRoles(actor: Privilege): Array<'viewer' | 'manager'> {
  if (actor === 'owner') return ['viewer', 'manager'];
  if (actor === 'manager') return ['viewer'];
  return [];
}

/** A member as people call them: their name, or their email when they gave none. */
export function displayName(member: { first_name: string | null; last_name: string | null; email: string }) {
  const name = [member.first_name, member.last_name].filter(Boolean).join(' ').trim();
  return name || member.email;
}
