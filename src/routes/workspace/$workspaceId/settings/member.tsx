import { createFileRoute } from '@tanstack/react-router';
import { MemberSettingsPage } from '../../../../features/settings/pages';

export const Route = createFileRoute('/workspace/$workspaceId/settings/member')({
  component: MemberSettingsPage,
});
