import { createFileRoute } from '@tanstack/react-router';
import { tokenSearchSchema } from '../-guards';
import { MicrosoftLoginPage } from '@/features/auth/MicrosoftLoginPage';

// Loaded lazily (its component is split into its own chunk). An invite token rides along to /login after sign-in.
export const Route = createFileRoute('/login/microsoft')({
  validateSearch: tokenSearchSchema,
  component: MicrosoftLoginPage,
});
