// The whole app on a fake backend at a dashboard's address: users/me, the workspace (Europe/Berlin), its saved queries
// and the overview, answered by the test's function (other social calls by the test's `backend`). For dom tests of what
// a dashboard says.
import { afterEach } from 'vitest';
import { createMemoryHistory } from '@tanstack/react-router';
import { cleanup, render } from '@testing-library/react';
import { App, createApp, type MurmurApp } from '@/app';
import type { OverviewResponse } from '@contract/insights-responses';
import type { SavedQuery } from '@contract/saved-queries';
import type { TagCategoriesResponse } from '@contract/tags';
import type { Privilege } from '@contract/workspaces';
import { AUTH_TOKENS_KEY } from '@/lib/storage-keys';
import { currentUserFixture, workspaceFixture } from './contract.fixtures';
import { fakeJwt, nowSeconds, shellReply, startFakeHttp, type FakeHttp, type FakeReply } from './fake-http';
import { testConfig } from './router-harness';

const SELF = '00000000-0000-4000-8000-000000000001';

let running: Array<{ app: MurmurApp; server: FakeHttp }> = [];
afterEach(async () => {
  cleanup();
  for (const { app, server } of running) {
    app.session.actor.stop();
    await server.close();
  }
  running = [];
  localStorage.clear();
});

const change = (value: number) => ({ value, previous: value, change_pct: 0 });

/** An overview of `mentions` posts in the body's range (no buckets: the tiles are what these tests read). */
export function overviewFor(
  body: { filters: { from: string; to: string } },
  mentions: number,
): OverviewResponse {
  return {
    time_zone: 'Europe/Berlin',
    range: { from: body.filters.from, to: body.filters.to },
    previous_range: { from: body.filters.from, to: body.filters.to },
    query: 'coffee',
    counted: `${mentions} posts counted.`,
    bucket: 'day',
    totals: {
      mentions: change(mentions),
      unique_authors: change(1),
      engagement: change(10),
      reach: change(100),
      mentions_per_day: mentions / 7,
    },
    over_time: [],
    spikes: { rule: 'A spike is …', mean: 0, stddev: 0, threshold: 0, min_count: 5 },
    sentiment: { positive: mentions, neutral: 0, negative: 0, average: 0.5 },
    platforms: [],
    top_posts: [],
    top_people: [],
  };
}

/** Renders the app at `url`; `overview` answers each overview call in turn (its body parsed). */
export async function visit(
  url: string,
  overview: (body: Record<string, unknown>, call: number) => FakeReply | Promise<FakeReply>,
  backend: DashboardBackend = {},
) {
  const opened = await dashboardApp(url, overview, backend);
  render(<App app={opened.app} />);
  return opened;
}

/**
 * What a test adds to the fake backend: the workspace's saved queries, its categories of tags (none by default), the
 * user's privilege in it (owner by default), and answers to other social calls.
 */
export interface DashboardBackend {
  savedQueries?: SavedQuery[];
  /** The workspace's categories; a function is asked at each read (a list that changes). */
  tagCategories?: TagCategoriesResponse | (() => TagCategoriesResponse);
  privilege?: Privilege;
  /** Another internal API call ("POST workspaces/w1/…", its body parsed), or undefined for a 404. */
  api?: (key: string, body: Record<string, unknown>) => FakeReply | undefined;
  /** Another social API call (its path, its body parsed), or undefined for a 404. */
  social?: (path: string, body: Record<string, unknown>) => FakeReply | undefined;
}

/** The app at `url` on the fake backend, not drawn yet (its router may load first); as `visit`. */
export async function dashboardApp(
  url: string,
  overview: (body: Record<string, unknown>, call: number) => FakeReply | Promise<FakeReply>,
  backend: DashboardBackend = {},
) {
  const server = await startFakeHttp();
  let calls = 0;
  server.handle = (request) => {
    const shell = shellReply(request);
    if (shell) return shell;
    const body = request.body ? (JSON.parse(request.body) as Record<string, unknown>) : {};
    if (request.path === '/social/insights/overview') return overview(body, calls++);
    const other = request.path.startsWith('/social/') ? backend.social?.(request.path, body) : undefined;
    if (other) return other;
    const key = `${request.method} ${request.path.replace(/^\/api\//, '')}`;
    const workspace = workspaceFixture('w1', {
      time_zone: 'Europe/Berlin',
      ...(backend.privilege ? { privilege: backend.privilege } : {}),
    });
    if (key === 'GET users/me') return { status: 200, body: currentUserFixture(SELF, [workspace]) };
    if (key === 'GET workspaces/w1') return { status: 200, body: workspace };
    if (key === 'GET workspaces/w1/tag-categories') {
      const listed = backend.tagCategories;
      return { status: 200, body: (typeof listed === 'function' ? listed() : listed) ?? { categories: [] } };
    }
    if (key === 'GET workspaces/w1/saved-queries') {
      const saved = backend.savedQueries ?? [];
      return { status: 200, body: { saved_queries: saved, usage: { count: saved.length, limit: 25 } } };
    }
    const answered = backend.api?.(key, body);
    if (answered) return answered;
    return { status: 404, body: { error: 'not_found', message: 'Not found.' } };
  };
  localStorage.setItem(
    AUTH_TOKENS_KEY,
    JSON.stringify({ access_token: fakeJwt(nowSeconds() + 3600, SELF), refresh_token: 'r' }),
  );
  const history = createMemoryHistory({ initialEntries: [url] });
  const app = createApp(
    { ...testConfig(`${server.url}/api/`), VITE_SOCIAL_API_BASE_URL: `${server.url}/social/` },
    { history, analytics: () => {} },
  );
  running.push({ app, server });
  const bodies = () =>
    server.calls
      .filter((call) => call.path === '/social/insights/overview')
      .map((call) => JSON.parse(call.body) as { query?: string; filters: { from: string; to: string } });
  return { app, server, history, bodies };
}
