import { useRouteContext } from '@tanstack/react-router';
import type { RouterContext } from '@/router-context';

/** The router context (API, session, query client…) for components. */
export function useApp(): RouterContext {
  return useRouteContext({ from: '__root__' });
}
