import { createFileRoute } from '@tanstack/react-router';
import { MicrosoftLoginPage } from '../../features/auth/MicrosoftLoginPage';

// Loaded lazily (its component is split into its own chunk).
export const Route = createFileRoute('/login/microsoft')({
  component: MicrosoftLoginPage,
});
