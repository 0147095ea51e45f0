import { createFileRoute } from '@tanstack/react-router';
import { LanguageStep } from '@/features/workspace-creation/steps';

export const Route = createFileRoute('/_authed/workspace/create/language')({
  component: LanguageStep,
});
