// The product's own sentences that more than one module shows (the spec's exact texts are in ./messages).
export const notices = {
  /** After joining a workspace: with a join code, or by accepting an invite link. */
  joinedWorkspace: 'You joined the workspace.',
  /** The same, for someone who already belonged to it (an invite link or join code used again). */
  alreadyMember: 'You already belong to this workspace.',
  /** A signed-in person who is not staff opened the scraping area. */
  staffOnly: 'The scraping area is for Murmur staff only.',
} as const;
