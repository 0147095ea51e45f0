// Answers of the internal and social APIs in the contract's own types, so a test's fake backend cannot drift from the
// server.
import type { DiscoverResponse } from '@contract/discover';
import type { SavedQuery, SavedQueryList, SavedQueryVolume } from '@contract/saved-queries';
import type { SocialPost } from '@contract/social-posts';
import type { CurrentUserResponse, Privilege, WorkspaceResponse } from '@contract/workspaces';

/** A workspace as GET workspaces/{id} (and users/me's list) gives it: open (no expiry), the caller an owner. */
export function workspaceFixture(id: string, overrides: Partial<WorkspaceResponse> = {}): WorkspaceResponse {
  return {
    id,
    name: `Workspace ${id}`,
    language: 'en',
    plan: 'trial',
    plan_expired_at: null,
    privilege: 'owner' satisfies Privilege,
    time_zone: 'UTC',
    ...overrides,
  };
}

/** users/me for a user who belongs to the given workspaces (each as workspaceFixture makes it). */
export function currentUserFixture(
  id: string,
  workspaces: Array<string | WorkspaceResponse>,
  overrides: Partial<Omit<CurrentUserResponse, 'workspaces'>> = {},
): CurrentUserResponse {
  return {
    id,
    email: `${id}@example.test`,
    first_name: 'Test',
    last_name: null,
    workspaces: workspaces.map((workspace) =>
      typeof workspace === 'string' ? workspaceFixture(workspace) : workspace,
    ),
    ...overrides,
  };
}

/** A saved query as the list and GET give it: typed by the caller, canonical text the same, no filters. */
export function savedQueryFixture(
  id: string,
  workspaceId: string,
  overrides: Partial<SavedQuery> = {},
): SavedQuery {
  return {
    id,
    workspace_id: workspaceId,
    name: `Query ${id.slice(-4)}`,
    query: 'coffee',
    normalized: 'coffee',
    lists: [],
    filters: {},
    created_by: null,
    created_at: 1_767_225_600,
    updated_at: 1_767_225_600,
    ...overrides,
  };
}

/** POST /social/saved-queries/volume for these saved queries, each with its 8 days of counts. */
export function savedQueryVolumeFixture(
  counts: Record<string, number[] | null>,
  timeZone = 'Europe/Paris',
): SavedQueryVolume {
  return {
    time_zone: timeZone,
    days: [
      '2026-10-29',
      '2026-10-30',
      '2026-10-31',
      '2026-11-01',
      '2026-11-02',
      '2026-11-03',
      '2026-11-04',
      '2026-11-05',
    ],
    range: { from: '2026-10-28T22:00:00.000Z', to: '2026-11-05T12:00:00.000Z' },
    counted: 'Posts matching each saved query, per day.',
    saved_queries: Object.entries(counts).map(([id, days]) => ({
      id,
      counts: days,
      total: days ? days.reduce((a, b) => a + b, 0) : null,
    })),
  };
}

/** GET workspaces/{id}/saved-queries of a workspace that has none yet, on the default plan's limit. */
export const emptySavedQueryListFixture = (): SavedQueryList => ({
  saved_queries: [],
  usage: { count: 0, limit: 25 },
});

/** A post as discover lists it (x, an original text post by @ferryfan, an hour old unless given). */
export function socialPostFixture(id: number, text: string, overrides: Partial<SocialPost> = {}): SocialPost {
  return {
    id,
    platform: 'x',
    external_id: `post-${id}`,
    url: null,
    text,
    language: 'en',
    posted_at: new Date(Date.now() - 3_600_000).toISOString(),
    kind: 'original',
    media: 'text',
    likes: 1,
    comments: 0,
    shares: 0,
    views: null,
    engagement: 1,
    hashtags: [],
    mentions: [],
    domains: [],
    sentiment: 0,
    sentiment_label: 'neutral',
    author: {
      id: 1,
      platform: 'x',
      handle: 'ferryfan',
      display_name: 'Ferry Fan',
      followers: 10,
      verified: false,
      avatar_url: null,
      country: null,
      language: null,
    },
    ...overrides,
  };
}

/** POST /social/discover's only page, with these posts, in the last 30 days. */
export function discoverPageFixture(posts: SocialPost[]): DiscoverResponse {
  return {
    posts,
    next_cursor: null,
    profiles: [],
    time_zone: 'Europe/Paris',
    range: { from: new Date(Date.now() - 30 * 86_400_000).toISOString(), to: new Date().toISOString() },
    counted: 'Posts matching the query in the last 30 days.',
  };
}
