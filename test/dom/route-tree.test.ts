// What the workspace guard reads from the route tree instead of from address strings: the spec's unguarded pages
// are real child routes of the workspace route, and exactly the routes that only redirect say so.
import { describe, expect, it } from 'vitest';
import { createRouter, type AnyRoute } from '@tanstack/react-router';
import { routeTree } from '@/routeTree.gen';
import { UNGUARDED_WORKSPACE_PAGES } from '@/machines/workspace-guard.machine';
import { isRedirectOnly, workspacePage } from '@/routes/-guards';

const WORKSPACE_ROUTE = '/_authed/workspace/$workspaceId';

// Route ids are assigned when a router is built from the tree.
const router = createRouter({ routeTree, context: {} as never });
const routes = Object.values(router.routesById) as AnyRoute[];
const byId = new Map(routes.map((route) => [route.id as string, route]));

describe('the route tree the guards read', () => {
  it('has a child route of the workspace route for each page that skips the checks (spec §4 step 1)', () => {
    for (const page of UNGUARDED_WORKSPACE_PAGES) {
      const route = byId.get(`${WORKSPACE_ROUTE}/${page}`);
      expect(route, page).toBeDefined();
      expect(
        workspacePage(
          [
            { routeId: WORKSPACE_ROUTE, staticData: {} },
            { routeId: route!.id, staticData: {} },
          ],
          WORKSPACE_ROUTE,
        ),
      ).toBe(page);
    }
  });

  it('marks as redirect-only exactly the routes that render nothing (they only redirect)', () => {
    const marked = routes.filter((route) => route.options.staticData?.redirectOnly === true).map((r) => r.id);
    const componentless = routes
      .filter(
        (route) => !route.isRoot && route.options.component === undefined && route.children === undefined,
      )
      .map((route) => route.id);
    expect(marked.sort()).toEqual(componentless.sort());
    expect(marked).toContain(`${WORKSPACE_ROUTE}/insight/`);
    expect(marked).toContain(`${WORKSPACE_ROUTE}/settings/`);
    expect(marked).toContain(`${WORKSPACE_ROUTE}/`);
  });

  it('names the page from the match below the workspace route, and none for its index', () => {
    const m = (routeId: string, redirectOnly = false) => ({ routeId, staticData: { redirectOnly } });
    const settings = [
      m('__root__'),
      m('/_authed'),
      m(WORKSPACE_ROUTE),
      m(`${WORKSPACE_ROUTE}/settings`),
      m(`${WORKSPACE_ROUTE}/settings/member`),
    ];
    expect(workspacePage(settings, WORKSPACE_ROUTE)).toBe('settings');
    expect(isRedirectOnly(settings)).toBe(false);
    const index = [m('__root__'), m('/_authed'), m(WORKSPACE_ROUTE), m(`${WORKSPACE_ROUTE}/`, true)];
    expect(workspacePage(index, WORKSPACE_ROUTE)).toBeNull();
    expect(isRedirectOnly(index)).toBe(true);
    expect(workspacePage([m('__root__'), m('/_authed'), m(WORKSPACE_ROUTE)], WORKSPACE_ROUTE)).toBeNull();
  });
});
