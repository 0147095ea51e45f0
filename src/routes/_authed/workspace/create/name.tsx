import { createFileRoute } from '@tanstack/react-router';
import { NameStep } from '@/features/workspace-creation/steps';

export const Route = createFileRoute('/_authed/workspace/create/name')({
  component: NameStep,
});
