import { createFileRoute } from '@tanstack/react-router';
import { SavedQueriesPage } from '../../../features/saved-queries/SavedQueriesPage';

export const Route = createFileRoute('/workspace/$workspaceId/saved-queries')({
  component: SavedQueriesPage,
});
