import { createFileRoute } from '@tanstack/react-router';
import { LanguageStep } from '../../../features/workspace-creation/steps';

export const Route = createFileRoute('/workspace/create/language')({
  component: LanguageStep,
});
