// Who is staff, as the browser can know it: the internal (scraping) workspace is among the user's workspaces in
// users/me. The server lists it only to accounts it marks as staff (server/users/current-user.ts: a former staff
// member's old membership is hidden), so a listed internal workspace means a staff member of it.
export function isStaff(
  me: { workspaces: ReadonlyArray<{ id: string }> } | undefined,
  internalWorkspaceId: string,
): boolean {
  return internalWorkspaceId !== '' && (me?.workspaces.some((w) => w.id === internalWorkspaceId) ?? false);
}
