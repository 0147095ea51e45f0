import { createRootRouteWithContext } from '@tanstack/react-router';
import type { RouterContext } from '@/router-context';
import { RootLayout } from '@/components/RootLayout';
import { ErrorScreen } from '@/components/ErrorScreen';
import { NotFound } from '@/components/NotFound';

export const Route = createRootRouteWithContext<RouterContext>()({
  component: RootLayout,
  errorComponent: ErrorScreen,
  notFoundComponent: NotFound,
});
