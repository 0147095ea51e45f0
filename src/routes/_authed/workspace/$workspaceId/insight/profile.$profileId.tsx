import { createFileRoute } from '@tanstack/react-router';
import { ProfilePage } from '@/features/insight/ProfilePage';
import { profilePageSearchSchema } from '@/features/insight/detail-search';

/** A profile's page in the dashboards' scope: who it is, its posts per day, and its posts (paged, sorted). */
export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/profile/$profileId')({
  validateSearch: profilePageSearchSchema,
  component: ProfilePage,
});
