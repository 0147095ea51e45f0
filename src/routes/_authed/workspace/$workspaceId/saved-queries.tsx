import { createFileRoute } from '@tanstack/react-router';
import { SavedQueriesPage } from '../../../../features/saved-queries/SavedQueriesPage';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/saved-queries')({
  component: SavedQueriesPage,
});
