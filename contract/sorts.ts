// The sorts of discover and of the insights lists, apart from discover.ts and insights.ts so the SPA's route tree (in
// the first load) can check a list's ?sort= without carrying the request and response schemas.
export const DISCOVER_SORTS = ['recency', 'engagement'] as const;
export type DiscoverSort = (typeof DISCOVER_SORTS)[number];
export const POST_SORTS = ['engagement', 'recency', 'overperformance'] as const;
export type PostSort = (typeof POST_SORTS)[number];
export const PROFILE_SORTS = ['mentions', 'followers', 'engagement'] as const;
export type ProfileSort = (typeof PROFILE_SORTS)[number];
