import { createFileRoute } from '@tanstack/react-router';
import { ConversationPage } from '@/features/insight/ConversationPage';

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/conversation')({
  component: ConversationPage,
});
