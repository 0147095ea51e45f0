// After a sign-in: the page the person opened while signed out (kept by requireLogin, src/lib/return-to.ts), when
// they may still see it. Not a state of the spec, whose /login decision is for someone already signed in and is left
// as it is: this runs only once a sign-in has just completed, before /login would decide. Loaded with the sign-in code.
import type { AnyRouter } from '@tanstack/react-router';
import { meQuery } from '@/api/queries';
import type { RouterContext } from '@/router-context';
import { RETURN_TO_KEY } from '@/lib/return-to';
import { isStaff } from '@/lib/staff';

/** As long as a kept page is worth returning to: a sign-in that takes longer is a new visit. */
export const RETURN_TO_MAX_AGE_MS = 30 * 60 * 1000;

/**
 * `value` as a path of this app (pathname, search and hash), or null when it is anything else: not a string, not
 * starting with one "/" (a protocol-relative "//host" or "/\host" leaves the origin), another origin once resolved,
 * or a sign-in address itself (/login…, /invite…), which would only go round again.
 */
export function appPath(value: unknown, origin: string): string | null {
  if (
    typeof value !== 'string' ||
    !value.startsWith('/') ||
    value.startsWith('//') ||
    value.startsWith('/\\')
  ) {
    return null;
  }
  let url: URL;
  try {
    url = new URL(value, origin);
  } catch {
    return null;
  }
  if (url.origin !== origin) return null;
  if (/^\/(login|invite)(\/|$)/.test(url.pathname)) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** Reads and forgets the kept page: a path of this app kept less than RETURN_TO_MAX_AGE_MS ago, or null. */
export function takeReturnTo(
  storage: Storage = sessionStorage,
  origin: string = window.location.origin,
  now: number = Date.now(),
): string | null {
  let raw: string | null;
  try {
    raw = storage.getItem(RETURN_TO_KEY);
    storage.removeItem(RETURN_TO_KEY);
  } catch {
    return null;
  }
  if (!raw) return null;
  try {
    const kept = JSON.parse(raw) as { path?: unknown; at?: unknown };
    const fresh = typeof kept.at === 'number' && now - kept.at >= 0 && now - kept.at < RETURN_TO_MAX_AGE_MS;
    return fresh ? appPath(kept.path, origin) : null;
  } catch {
    return null;
  }
}

type Deps = Pick<RouterContext, 'queryClient' | 'api' | 'config'> & { router: AnyRouter };

/**
 * Whether the person now signed in may see `path`, from the route tree and users/me: a page that required the sign-in
 * (below /_authed) and exists; inside a workspace, one they belong to; the scraping area, staff only. Their role and
 * the workspace's plan are left to the workspace guard, which shows its true state.
 */
export async function maySee({ router, queryClient, api, config }: Deps, path: string): Promise<boolean> {
  const [routes, params, found] = router.getMatchedRoutes(new URL(path, 'http://app.invalid').pathname);
  // A partial match (an unknown page below a known one) carries the rest as the '**' param.
  if (!found || params['**'] !== undefined) return false;
  const ids = new Set(routes.map((route) => route.id as string));
  if (!ids.has('/_authed')) return false;
  let me;
  try {
    me = await queryClient.fetchQuery(meQuery(api));
  } catch {
    return false;
  }
  if (ids.has('/_authed/scraping')) return isStaff(me, config.VITE_INTERNAL_WORKSPACE_ID);
  if (ids.has('/_authed/workspace/$workspaceId')) {
    return me.workspaces.some((workspace) => workspace.id === params.workspaceId);
  }
  return true;
}

/**
 * Where a person who has just signed in goes: the kept page when they may still see it, otherwise /login (with the
 * invite token, if any: an invite decides, and the kept page is forgotten either way).
 */
export async function continueAfterSignIn(deps: Deps, inviteToken: string | null) {
  deps.queryClient.clear();
  const path = takeReturnTo();
  const kept = path !== null && inviteToken === null && (await maySee(deps, path)) ? path : null;
  if (kept) return deps.router.navigate({ href: kept, replace: true });
  return deps.router.navigate({
    to: '/login',
    search: inviteToken ? { token: inviteToken } : {},
    replace: true,
  });
}
