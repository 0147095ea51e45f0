// The dashboards' tabs (InsightLayout.tsx); also drawn by the build into the dashboards' shells
// (scripts/prerender-shell-markup.tsx).
export const INSIGHT_LINKS = [
  { to: '/workspace/$workspaceId/insight/overview', label: 'Overview' },
  { to: '/workspace/$workspaceId/insight/posts', label: 'Posts' },
  { to: '/workspace/$workspaceId/insight/people', label: 'People' },
  { to: '/workspace/$workspaceId/insight/performance', label: 'Performance' },
  { to: '/workspace/$workspaceId/insight/conversation', label: 'Conversation' },
  { to: '/workspace/$workspaceId/insight/filtered-posts', label: 'Filtered posts' },
  { to: '/workspace/$workspaceId/insight/filtered-profiles', label: 'Filtered profiles' },
  { to: '/workspace/$workspaceId/insight/compare', label: 'Compare' },
];
