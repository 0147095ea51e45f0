// The dashboards whose frame never depends on the answer: their heading, their line on what they are for, and how many
// cards their skeleton shows while the answer is on the way. The pages draw these (OverviewPage, PeoplePage, PerformancePage, ConversationPage), and
// the build draws the same into each one's prerendered shell (scripts/prerender-shell-markup.tsx).
import type { SHELL_DASHBOARDS } from '@/lib/prerender';

interface DashboardPage {
  title: string;
  description: string;
  skeleton: number;
}

export const DASHBOARD_PAGES: Record<(typeof SHELL_DASHBOARDS)[number], DashboardPage> = {
  overview: {
    title: 'Overview',
    description: 'Mentions, reach, engagement and sentiment at a glance.',
    skeleton: 6,
  },
  people: { title: 'People', description: 'Who talks the most, and who is heard.', skeleton: 2 },
  performance: {
    title: 'Performance',
    description: 'Engagement by platform, format and time of day.',
    skeleton: 4,
  },
  conversation: {
    title: 'Conversation',
    description: 'Hashtags, mentions, words and links people use.',
    skeleton: 4,
  },
};
