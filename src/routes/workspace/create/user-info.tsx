import { createFileRoute } from '@tanstack/react-router';
import { UserInfoStep } from '../../../features/workspace-creation/steps';

export const Route = createFileRoute('/workspace/create/user-info')({
  component: UserInfoStep,
});
