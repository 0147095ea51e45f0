// The current user as the guards read it.
import { meQuery } from '@/api/queries';
import type { RouterContext } from '@/router-context';

/** Fetches the current user (cached briefly) and hands the error-reporting service its user context. */
export async function fetchUser(context: RouterContext) {
  const me = await context.queryClient.fetchQuery(meQuery(context.api));
  context.reporter.setUser({ id: me.id, email: me.email });
  return me;
}
