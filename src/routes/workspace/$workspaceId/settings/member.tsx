import { createFileRoute } from '@tanstack/react-router';
import { MemberSettingsPage } from '../../../../features/settings/MembersPage';

export const Route = createFileRoute('/workspace/$workspaceId/settings/member')({
  component: MemberSettingsPage,
});
