// A small, contract-faithful fake of Murmur's internal API (spec §7), plus static serving of dist-e2e with a
// history fallback, so the SPA and its API share one origin (http://127.0.0.1:PORT/). node:http only.
// Tests drive it in-process through the returned control object (seed data, force statuses, count calls, delay).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

import type { CurrentUserResponse, Privilege, WorkspaceResponse } from '@contract/workspaces';
import { corpusTotalsSchema, scrapeJobListSchema } from '@contract/scraping';
import { credentialListSchema } from '@contract/source-credentials';
import { emptySavedQueryListFixture } from './contract.fixtures';

/** The internal (scraping) workspace's id, as the e2e build's VITE_INTERNAL_WORKSPACE_ID. */
const INTERNAL_WORKSPACE_ID = 'internal';

export type { Privilege };

export interface FakeUser {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
}

export interface FakeWorkspace {
  id: string;
  name: string;
  language: string;
  plan: string;
  /** Unix seconds, or null when the plan does not expire. */
  plan_expired_at: number | null;
  time_zone: string;
  /** userId → that member's privilege. */
  members: Record<string, Privilege>;
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
}

export interface StartOptions {
  port: number;
  distDir: string;
  host?: string;
}

/** Seconds an issued access token lives by default. */
const ACCESS_TOKEN_TTL_S = 3600;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const nowS = () => Math.floor(Date.now() / 1000);

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

interface RouteResult {
  status: number;
  body: unknown;
}

export function startFakeBackend({ port, distDir, host = '127.0.0.1' }: StartOptions) {
  const users = new Map<string, FakeUser>();
  const workspaces = new Map<string, FakeWorkspace>();
  /** invite token → workspace id (and the privilege the invitee gets). */
  const invites = new Map<string, { workspaceId: string; privilege: Privilege }>();
  const joinCodes = new Map<string, { workspaceId: string; privilege: Privilege }>();
  /** access token → { userId, exp } for every token this fake issued. */
  const accessTokens = new Map<string, { userId: string; exp: number }>();
  /** refresh token → userId, only those still valid (rotation revokes the old one). */
  const refreshTokens = new Map<string, string>();
  const callCounts = new Map<string, number>();
  const forced = new Map<string, { status: number; body: unknown }>();
  const delays = new Map<string, number>();
  let tokenCounter = 0;

  const indexHtmlPath = path.join(distDir, 'index.html');
  const distRoot = path.resolve(distDir);

  function makeJwt(userId: string, exp: number): string {
    tokenCounter += 1;
    const header = base64url({ alg: 'HS256', typ: 'JWT' });
    const payload = base64url({ sub: userId, exp, iat: nowS(), jti: `t${tokenCounter}` });
    return `${header}.${payload}.fake-signature`;
  }

  function issueAccessToken(userId: string, expiresInS = ACCESS_TOKEN_TTL_S): string {
    const exp = nowS() + expiresInS;
    const token = makeJwt(userId, exp);
    accessTokens.set(token, { userId, exp });
    return token;
  }

  function issueRefreshToken(userId: string): string {
    tokenCounter += 1;
    const token = `refresh-${userId}-${tokenCounter}-${Math.random().toString(36).slice(2, 10)}`;
    refreshTokens.set(token, userId);
    return token;
  }

  function bearer(req: http.IncomingMessage): string | null {
    const header = req.headers.authorization;
    if (!header?.startsWith('Bearer ')) return null;
    return header.slice('Bearer '.length);
  }

  function authenticate(req: http.IncomingMessage): FakeUser {
    const token = bearer(req);
    const entry = token ? accessTokens.get(token) : undefined;
    if (!entry || entry.exp <= nowS()) throw new HttpFailure(401, { detail: 'Not authenticated' });
    const user = users.get(entry.userId);
    if (!user) throw new HttpFailure(401, { detail: 'Unknown user' });
    return user;
  }

  /** The contract's workspace as the given member sees it. */
  function workspaceFor(workspace: FakeWorkspace, privilege: Privilege): WorkspaceResponse {
    const { id, name, language, plan, plan_expired_at, time_zone } = workspace;
    return { id, name, language, plan, plan_expired_at, privilege, time_zone };
  }

  function workspacesOf(userId: string): WorkspaceResponse[] {
    return [...workspaces.values()].flatMap((w) => {
      const privilege = w.members[userId];
      return privilege ? [workspaceFor(w, privilege)] : [];
    });
  }

  async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    if (text === '') return {};
    try {
      const parsed: unknown = JSON.parse(text);
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
    } catch {
      throw new HttpFailure(400, { detail: 'Body is not JSON' });
    }
  }

  async function api(req: http.IncomingMessage, method: string, route: string): Promise<RouteResult> {
    if (method === 'POST' && route === 'auth/login') {
      const body = await readJson(req);
      const oauth = body.oauth_token;
      if (typeof oauth !== 'string' || (body.vendor_type !== 'google' && body.vendor_type !== 'microsoft')) {
        throw new HttpFailure(400, { detail: 'oauth_token and vendor_type are required' });
      }
      // The fake accepts an oauth token equal to a seeded user's id or email.
      const user = [...users.values()].find((u) => u.id === oauth || u.email === oauth);
      if (!user) throw new HttpFailure(401, { detail: 'Invalid oauth token' });
      return {
        status: 200,
        body: { access_token: issueAccessToken(user.id), refresh_token: issueRefreshToken(user.id) },
      };
    }
    if (method === 'POST' && route === 'auth/refresh') {
      const token = bearer(req);
      const userId = token ? refreshTokens.get(token) : undefined;
      if (!token || userId === undefined) throw new HttpFailure(401, { detail: 'Invalid refresh token' });
      refreshTokens.delete(token);
      return {
        status: 200,
        body: { access_token: issueAccessToken(userId), refresh_token: issueRefreshToken(userId) },
      };
    }
    if (method === 'GET' && route === 'users/me') {
      const user = authenticate(req);
      const me: CurrentUserResponse = { ...user, workspaces: workspacesOf(user.id) };
      return { status: 200, body: me };
    }
    // The header's bell: no notifications in the fake.
    if (method === 'GET' && route === 'notifications/unread-count') {
      authenticate(req);
      return { status: 200, body: { unread: 0 } };
    }
    const workspaceMatch = /^workspaces\/([^/]+)$/.exec(route);
    if (method === 'GET' && workspaceMatch) {
      const user = authenticate(req);
      const workspace = workspaces.get(decodeURIComponent(workspaceMatch[1] as string));
      if (!workspace) throw new HttpFailure(404, { detail: 'Workspace not found' });
      const privilege = workspace.members[user.id];
      if (!privilege) throw new HttpFailure(403, { detail: 'Not a member of this workspace' });
      return { status: 200, body: workspaceFor(workspace, privilege) };
    }
    // The saved queries page (where a workspace lands) reads its list and the members; none are listed here.
    const listMatch = /^workspaces\/([^/]+)\/(saved-queries|members)$/.exec(route);
    if (method === 'GET' && listMatch) {
      const user = authenticate(req);
      const workspace = workspaces.get(decodeURIComponent(listMatch[1] as string));
      if (!workspace?.members[user.id]) throw new HttpFailure(404, { detail: 'Workspace not found' });
      return { status: 200, body: listMatch[2] === 'members' ? [] : emptySavedQueryListFixture() };
    }
    if (method === 'POST' && (route === 'user/me/invite' || route === 'user/me/join')) {
      const user = authenticate(req);
      const body = await readJson(req);
      const field = route === 'user/me/invite' ? 'token' : 'code';
      const value = body[field];
      if (typeof value !== 'string' || value === '')
        throw new HttpFailure(400, { detail: `${field} is required` });
      const grant = (route === 'user/me/invite' ? invites : joinCodes).get(value);
      if (!grant) throw new HttpFailure(404, { detail: `Unknown ${field}` });
      const workspace = workspaces.get(grant.workspaceId);
      if (!workspace) throw new HttpFailure(404, { detail: 'Workspace not found' });
      const alreadyMember = workspace.members[user.id] !== undefined;
      workspace.members[user.id] ??= grant.privilege;
      return { status: 200, body: { id: workspace.id, already_member: alreadyMember } };
    }
    // The scraping area's reads (staff: members of the internal workspace, as the real users/me lists it only to
    // them): no job, no credentials, and an empty corpus over the last `days` UTC days; anyone else gets the server's
    // 403.
    const scrapingRead = /^scraping\/(jobs|totals|credentials)$/.exec(route);
    if (method === 'GET' && scrapingRead) {
      const user = authenticate(req);
      if (!workspaces.get(INTERNAL_WORKSPACE_ID)?.members[user.id]) {
        throw new HttpFailure(403, {
          error: 'staff_only',
          message: 'The scraping area is for Murmur staff only.',
        });
      }
      if (scrapingRead[1] === 'jobs') return { status: 200, body: scrapeJobListSchema.parse({ jobs: [] }) };
      if (scrapingRead[1] === 'credentials') {
        return { status: 200, body: credentialListSchema.parse({ credentials: [], can_store: true }) };
      }
      const days = Number(new URL(req.url ?? '/', 'http://fake').searchParams.get('days') ?? 14);
      const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
      const totals = {
        days: Array.from({ length: days }, (_, i) =>
          new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10),
        ),
        platforms: [],
        all_time: [],
      };
      return { status: 200, body: corpusTotalsSchema.parse(totals) };
    }
    throw new HttpFailure(404, { detail: `No route ${method} /api/${route}` });
  }

  function sendJson(res: http.ServerResponse, status: number, body: unknown) {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(text),
      'Cache-Control': 'no-store',
    });
    res.end(text);
  }

  function sendFile(res: http.ServerResponse, file: string, method: string) {
    const data = fs.readFileSync(file);
    res.writeHead(200, {
      'Content-Type': CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': data.length,
      'Cache-Control': 'no-store',
    });
    res.end(method === 'HEAD' ? undefined : data);
  }

  function serveStatic(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    pathname: string,
    method: string,
  ) {
    if (method !== 'GET' && method !== 'HEAD') {
      sendJson(res, 405, { detail: 'Method not allowed' });
      return;
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      decoded = '/';
    }
    const candidate = path.resolve(distRoot, `.${path.posix.normalize(decoded)}`);
    const inside = candidate === distRoot || candidate.startsWith(distRoot + path.sep);
    if (inside && fs.existsSync(candidate) && fs.statSync(candidate).isFile()) {
      sendFile(res, candidate, method);
      return;
    }
    // History fallback: every other GET is the SPA.
    sendFile(res, indexHtmlPath, method);
  }

  const server = http.createServer((req, res) => {
    void (async () => {
      const method = (req.method ?? 'GET').toUpperCase();
      const url = new URL(req.url ?? '/', `http://${host}:${port}`);
      const pathname = url.pathname;
      if (!pathname.startsWith('/api/')) {
        if (pathname.startsWith('/social/') || pathname.startsWith('/payments/')) {
          sendJson(res, 404, { detail: 'Not part of the fake' });
          return;
        }
        serveStatic(req, res, pathname, method);
        return;
      }
      const key = `${method} ${pathname}`;
      callCounts.set(key, (callCounts.get(key) ?? 0) + 1);
      const delay = delays.get(key) ?? 0;
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      const override = forced.get(key);
      if (override) {
        // Drain the body so keep-alive connections stay usable.
        req.resume();
        sendJson(res, override.status, override.body);
        return;
      }
      try {
        const result = await api(req, method, pathname.slice('/api/'.length));
        sendJson(res, result.status, result.body);
      } catch (error) {
        req.resume();
        if (error instanceof HttpFailure) sendJson(res, error.status, error.body);
        else sendJson(res, 500, { detail: error instanceof Error ? error.message : String(error) });
      }
    })().catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { detail: String(error) });
      else res.destroy();
    });
  });

  const control = {
    origin: `http://${host}:${port}`,

    /** Forgets every user, workspace, token, counter, forced status and delay. */
    reset() {
      users.clear();
      workspaces.clear();
      invites.clear();
      joinCodes.clear();
      accessTokens.clear();
      refreshTokens.clear();
      callCounts.clear();
      forced.clear();
      delays.clear();
    },

    addUser(user: Partial<FakeUser> & { id: string }): FakeUser {
      const full: FakeUser = {
        email: `${user.id}@example.com`,
        first_name: 'Test',
        last_name: user.id,
        ...user,
      };
      users.set(full.id, full);
      return full;
    },

    addWorkspace(workspace: Partial<FakeWorkspace> & { id: string }): FakeWorkspace {
      const full: FakeWorkspace = {
        name: `Workspace ${workspace.id}`,
        language: 'en',
        plan: 'trial',
        plan_expired_at: null,
        time_zone: 'UTC',
        members: {},
        ...workspace,
      };
      workspaces.set(full.id, full);
      return full;
    },

    addInvite(token: string, workspaceId: string, privilege: Privilege = 'viewer') {
      invites.set(token, { workspaceId, privilege });
    },

    addJoinCode(code: string, workspaceId: string, privilege: Privilege = 'viewer') {
      joinCodes.set(code, { workspaceId, privilege });
    },

    /** Issues a valid pair for a seeded user, as auth/login would. */
    issueTokens(userId: string): TokenPair {
      return { access_token: issueAccessToken(userId), refresh_token: issueRefreshToken(userId) };
    },

    /** A well-formed access token of this user whose exp lies in the past (default: a minute ago). */
    expiredAccessToken(userId: string, secondsAgo = 60): string {
      return issueAccessToken(userId, -secondsAgo);
    },

    /** Makes every issued access token unusable (the server forgot them): the next request answers 401. */
    revokeAccessTokens() {
      accessTokens.clear();
    },

    revokeRefreshTokens() {
      refreshTokens.clear();
    },

    isRefreshTokenValid(token: string): boolean {
      return refreshTokens.has(token);
    },

    /** The refresh tokens currently valid for a user (after rotation, only the newest). */
    refreshTokensOf(userId: string): string[] {
      return [...refreshTokens].filter(([, owner]) => owner === userId).map(([token]) => token);
    },

    /** Makes `METHOD /api/path` always answer this status (401 by default), whatever the request. */
    forceStatus(key: string, status = 401, body: unknown = { detail: `Forced ${status}` }) {
      forced.set(key, { status, body });
    },

    clearForcedStatus(key: string) {
      forced.delete(key);
    },

    /** Delays every response to `METHOD /api/path` by this many milliseconds. */
    delay(key: string, ms: number) {
      if (ms > 0) delays.set(key, ms);
      else delays.delete(key);
    },

    /** How many requests `METHOD /api/path` received, e.g. calls('POST /api/auth/refresh'). */
    calls(key: string): number {
      return callCounts.get(key) ?? 0;
    },

    /** Every API call counted so far, keyed by `METHOD /api/path`. */
    allCalls(): Record<string, number> {
      return Object.fromEntries(callCounts);
    },

    resetCalls() {
      callCounts.clear();
    },

    close(): Promise<void> {
      return new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };

  return new Promise<typeof control>((resolve, reject) => {
    if (!fs.existsSync(indexHtmlPath)) {
      reject(new Error(`No SPA build at ${indexHtmlPath}: the browser project's globalSetup builds it`));
      return;
    }
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(control);
    });
  });
}

export type FakeBackend = Awaited<ReturnType<typeof startFakeBackend>>;
