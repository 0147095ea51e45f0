// The calls of spec §7 with validated responses. Each returns data or throws HttpError / ResponseShapeError.
import * as z from 'zod/mini';
import type { Wretch } from 'wretch';
import { createHttpClient, type HttpReporter, type SessionGate } from './http';
import { BODY_EXCERPT_LENGTH, HttpError, ResponseShapeError } from './errors';
import { nonceResponseSchema, refreshResponseSchema, tokenPairSchema, type VendorType } from '@contract/auth';
import { joinedWorkspaceResponseSchema } from '@contract/invites';
import {
  currentUserResponseSchema,
  workspaceResponseSchema,
  type CurrentUserResponse,
  type WorkspaceResponse,
} from '@contract/workspaces';

export interface SendInit {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  headers?: Record<string, string>;
  /** Cancels the request (TanStack Query passes one to every queryFn; a newer keystroke cancels a stale check). */
  signal?: AbortSignal;
}

async function send<S extends z.ZodMiniType>(
  client: Wretch,
  path: string,
  schema: S,
  init: SendInit,
): Promise<z.infer<S>> {
  let request = client.url(path);
  if (init.headers) request = request.headers(init.headers);
  if (init.signal) request = request.options({ signal: init.signal });
  const chain =
    init.method === 'GET'
      ? request.get()
      : init.method === 'DELETE'
        ? request.delete()
        : init.method === 'PATCH'
          ? request.json(init.body ?? {}).patch()
          : init.method === 'PUT'
            ? request.json(init.body ?? {}).put()
            : request.json(init.body ?? {}).post();
  // Read as text so that an empty body (204) parses as undefined instead of failing as JSON.
  const text = await chain.text().catch((error: unknown) => {
    throw toHttpError(error, init.method);
  });
  let payload: unknown;
  try {
    payload = text ? JSON.parse(text) : undefined;
  } catch {
    throw new ResponseShapeError(path, ['(body): not JSON']);
  }
  const parsed = z.safeParse(schema, payload);
  if (!parsed.success) {
    throw new ResponseShapeError(
      path,
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`),
    );
  }
  return parsed.data;
}

function toHttpError(error: unknown, method: string): unknown {
  if (error instanceof HttpError || error instanceof ResponseShapeError) return error;
  // wretch 3 puts the response body of a failed request in `message`.
  const wretchError = error as { status?: unknown; url?: unknown; message?: unknown; response?: Response };
  if (typeof wretchError.status === 'number') {
    const retryAfter = Number(wretchError.response?.headers.get('retry-after') ?? Number.NaN);
    return new HttpError(
      method,
      String(wretchError.url ?? ''),
      wretchError.status,
      typeof wretchError.message === 'string' ? wretchError.message.slice(0, BODY_EXCERPT_LENGTH) : '',
      Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : null,
    );
  }
  return error;
}

export interface ApiOptions {
  apiBaseUrl: string;
  /** The social API (corpus search, query validation, dashboards): its own base URL, the same session and token. */
  socialApiBaseUrl?: string;
  reporter: HttpReporter;
  gate: SessionGate;
  /** Called when users/me still answers 401 after the refresh rounds (spec §4, the workspaceCreation rule). */
  onMeUnauthorized?: () => void;
  fetch?: typeof fetch;
}

export function createApi({
  apiBaseUrl,
  socialApiBaseUrl,
  reporter,
  gate,
  onMeUnauthorized,
  fetch,
}: ApiOptions) {
  const internal = createHttpClient({ baseUrl: apiBaseUrl, reporter, gate, fetch });
  const social = socialApiBaseUrl
    ? createHttpClient({ baseUrl: socialApiBaseUrl, reporter, gate, fetch })
    : null;
  // The refresh call goes through a client without the 401 handling, so a failing refresh cannot recurse.
  const auth = createHttpClient({ baseUrl: apiBaseUrl, reporter, fetch });
  /** POSTs `body` to the social API and gives its answer as it is (a file, a stream), or its error as an HttpError. */
  const postSocial = (path: string, body: unknown, accept: string, signal?: AbortSignal) => {
    if (!social) throw new Error('The social API base URL is not configured.');
    let request = social.url(path).headers({ Accept: accept });
    if (signal) request = request.options({ signal });
    return request
      .json(body as object)
      .post()
      .res()
      .catch((error: unknown) => {
        throw toHttpError(error, 'POST');
      });
  };

  return {
    /** The internal API's client (token, refresh, retries, reporting), for feature call modules. */
    http: internal,
    /** Parses a response with its schema; feature call modules use it like the calls below. */
    send: <S extends z.ZodMiniType>(path: string, schema: S, init: SendInit) =>
      send(internal, path, schema, init),
    /** The same for the social API (paths relative to its base, e.g. 'query/validate'). */
    sendSocial: <S extends z.ZodMiniType>(path: string, schema: S, init: SendInit) => {
      if (!social) throw new Error('The social API base URL is not configured.');
      return send(social, path, schema, init);
    },
    /**
     * A file the social API makes (the dashboards' CSV exports): POSTs `body` and gives the whole answer as a Blob
     * with the file name the server chose (Content-Disposition), or `fallbackName`.
     */
    downloadSocial: async (
      path: string,
      body: unknown,
      fallbackName: string,
      signal?: AbortSignal,
      accept = 'text/csv',
    ) => {
      const response = await postSocial(path, body, accept, signal);
      const disposition = response.headers.get('content-disposition') ?? '';
      const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallbackName;
      return { blob: await response.blob(), name };
    },
    /**
     * A POST to the social API answered with NDJSON (tagging every post of a list: a progress line a batch): each
     * line given to `onLine` parsed, as it arrives. Resolves once the answer has ended.
     */
    streamSocial: async (
      path: string,
      body: unknown,
      onLine: (line: unknown) => void,
      signal?: AbortSignal,
    ) => {
      const response = await postSocial(path, body, 'application/x-ndjson', signal);
      const decoder = new TextDecoder();
      let pending = '';
      const take = (text: string) => {
        pending += text;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) onLine(JSON.parse(line));
      };
      const reader = response.body?.getReader();
      if (!reader) take(await response.text());
      else {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          take(decoder.decode(value, { stream: true }));
        }
        take(decoder.decode());
      }
      if (pending.trim()) onLine(JSON.parse(pending));
    },
    /** Starts a sign-in: a single-use nonce the vendor must sign into the ID token posted to login. */
    nonce: () => send(auth, 'auth/nonce', nonceResponseSchema, { method: 'POST' }),
    login: (oauthToken: string, vendorType: VendorType) =>
      send(internal, 'auth/login', tokenPairSchema, {
        method: 'POST',
        body: { oauth_token: oauthToken, vendor_type: vendorType },
      }),
    refresh: (refreshToken: string) =>
      send(auth, 'auth/refresh', refreshResponseSchema, {
        method: 'POST',
        headers: { Authorization: `Bearer ${refreshToken}` },
      }),
    /** Ends the sign-in the refresh token belongs to (204 whether or not the server knew it). */
    logout: (refreshToken: string) =>
      send(auth, 'auth/logout', z.unknown(), {
        method: 'POST',
        headers: { Authorization: `Bearer ${refreshToken}` },
      }).then(() => undefined),
    getMe: (): Promise<CurrentUserResponse> =>
      send(internal, 'users/me', currentUserResponseSchema, { method: 'GET' }).catch((error: unknown) => {
        if (error instanceof HttpError && error.status === 401) onMeUnauthorized?.();
        throw error;
      }),
    getWorkspace: (workspaceId: string): Promise<WorkspaceResponse> =>
      send(internal, `workspaces/${encodeURIComponent(workspaceId)}`, workspaceResponseSchema, {
        method: 'GET',
      }),
    validateInvite: (token: string) =>
      send(internal, 'user/me/invite', joinedWorkspaceResponseSchema, { method: 'POST', body: { token } }),
    joinWithCode: (code: string) =>
      send(internal, 'user/me/join', joinedWorkspaceResponseSchema, { method: 'POST', body: { code } }),
  };
}

export type Api = ReturnType<typeof createApi>;
