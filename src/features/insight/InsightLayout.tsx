import { Outlet, useParams } from '@tanstack/react-router';
import { SectionNav } from '../../components/SectionNav';

const LINKS = [
  { to: '/workspace/$workspaceId/insight/overview', label: 'Overview' },
  { to: '/workspace/$workspaceId/insight/posts', label: 'Posts' },
  { to: '/workspace/$workspaceId/insight/people', label: 'People' },
  { to: '/workspace/$workspaceId/insight/performance', label: 'Performance' },
  { to: '/workspace/$workspaceId/insight/conversation', label: 'Conversation' },
  { to: '/workspace/$workspaceId/insight/filtered-posts', label: 'Filtered posts' },
  { to: '/workspace/$workspaceId/insight/filtered-profiles', label: 'Filtered profiles' },
];

export function InsightLayout() {
  const { workspaceId } = useParams({ from: '/_authed/workspace/$workspaceId' });
  return (
    <>
      <SectionNav label="Insight dashboards" workspaceId={workspaceId} links={LINKS} />
      <Outlet />
    </>
  );
}
