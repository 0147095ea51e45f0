import { Outlet, useParams } from '@tanstack/react-router';
import { SectionNav } from '@/components/SectionNav';

const LINKS = [
  { to: '/workspace/$workspaceId/settings/general', label: 'General' },
  { to: '/workspace/$workspaceId/settings/member', label: 'Members' },
  { to: '/workspace/$workspaceId/settings/lists', label: 'Lists' },
  { to: '/workspace/$workspaceId/settings/categories', label: 'Categories' },
  { to: '/workspace/$workspaceId/settings/share-links', label: 'Share links' },
  { to: '/workspace/$workspaceId/settings/plan', label: 'Plan' },
  { to: '/workspace/$workspaceId/settings/billing', label: 'Billing' },
];

export function SettingsLayout() {
  const { workspaceId } = useParams({ from: '/_authed/workspace/$workspaceId' });
  return (
    <>
      <SectionNav label="Settings" workspaceId={workspaceId} links={LINKS} />
      <Outlet />
    </>
  );
}
