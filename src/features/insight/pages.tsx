import { EmptyState, PageFrame } from '../../components/PageFrame';

function Dashboard({ title, description }: { title: string; description: string }) {
  return (
    <PageFrame title={title} description={description}>
      <EmptyState title="Choose a saved query">
        Dashboards show the posts and people a saved query matches.
      </EmptyState>
    </PageFrame>
  );
}

export const OverviewPage = () => (
  <Dashboard title="Overview" description="Mentions, reach, engagement and sentiment at a glance." />
);
export const PostsPage = () => <Dashboard title="Posts" description="The posts behind the numbers." />;
export const PeoplePage = () => (
  <Dashboard title="People" description="Who talks the most, and who is heard." />
);
export const PerformancePage = () => (
  <Dashboard title="Performance" description="Engagement by platform, format and time of day." />
);
export const ConversationPage = () => (
  <Dashboard title="Conversation" description="Hashtags, mentions, terms and links people use." />
);
export const FilteredPostsPage = () => (
  <Dashboard title="Filtered posts" description="Posts behind a chart point or filter." />
);
export const FilteredProfilesPage = () => (
  <Dashboard title="Filtered profiles" description="Profiles behind a chart point or filter." />
);
