// The insights dashboards by name: each one's request and response schemas. The server registers one route per entry
// (POST /social/insights/<name>) and the SPA's API client calls the same address with the same schemas, so a
// dashboard is added, renamed or reshaped here once.
import {
  conversationBodySchema,
  filteredPostsBodySchema,
  filteredProfilesBodySchema,
  insightsBodySchema,
  peopleBodySchema,
  postsBodySchema,
} from './insights';
import {
  conversationResponseSchema,
  overviewResponseSchema,
  peopleResponseSchema,
  performanceResponseSchema,
  postsResponseSchema,
  profilesResponseSchema,
} from './insights-responses';

export const INSIGHT_DASHBOARDS = {
  overview: { body: insightsBodySchema, response: overviewResponseSchema },
  posts: { body: postsBodySchema, response: postsResponseSchema },
  people: { body: peopleBodySchema, response: peopleResponseSchema },
  performance: { body: insightsBodySchema, response: performanceResponseSchema },
  conversation: { body: conversationBodySchema, response: conversationResponseSchema },
  'filtered-posts': { body: filteredPostsBodySchema, response: postsResponseSchema },
  'filtered-profiles': { body: filteredProfilesBodySchema, response: profilesResponseSchema },
} as const;
export type Dashboard = keyof typeof INSIGHT_DASHBOARDS;

/** Each dashboard's name as the app shows it. */
export const DASHBOARD_TITLES: Record<Dashboard, string> = {
  overview: 'Overview',
  posts: 'Posts',
  people: 'People',
  performance: 'Performance',
  conversation: 'Conversation',
  'filtered-posts': 'Filtered posts',
  'filtered-profiles': 'Filtered profiles',
};

/** A dashboard's address below the social API's base (/social): the server's route and the client's call. */
export const dashboardPath = (dashboard: Dashboard) => `insights/${dashboard}` as const;
