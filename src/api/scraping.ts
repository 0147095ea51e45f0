// Calls of the scraping area's endpoints (internal API, staff only) and their queryOptions. The job list and an open
// run are read again every few seconds while the screen is open (live progress); the corpus totals when a run ends.
import { queryOptions } from '@tanstack/react-query';
import * as z from 'zod/mini';
import type { Api } from './api';
import { retryDelay, retryFigures } from './errors';
import { readTokens } from '@/lib/token-storage';
import {
  corpusTotalsSchema,
  scrapeJobDetailSchema,
  scrapeJobListSchema,
  scrapeJobSchema,
  scrapeLogSchema,
  scrapeRefusalsSchema,
  type FormSourceParams,
  type ScrapeJob,
} from '@contract/scraping';
import {
  credentialListSchema,
  credentialSchema,
  credentialTestSchema,
  type CreateCredentialBody,
} from '@contract/source-credentials';
import { sentimentRescanStatusSchema } from '@contract/sentiment-rescan';

export interface JobInput {
  name: string;
  params: FormSourceParams;
  every_minutes: number | null;
}

const LIVE_MS = 3_000;

export const scrapeJobsQuery = (api: Api) =>
  queryOptions({
    queryKey: ['scraping', 'jobs'] as const,
    queryFn: ({ signal }) => api.send('scraping/jobs', scrapeJobListSchema, { method: 'GET', signal }),
    refetchInterval: LIVE_MS,
  });

export const scrapeJobQuery = (api: Api, jobId: string) =>
  queryOptions({
    queryKey: ['scraping', 'jobs', jobId] as const,
    queryFn: ({ signal }) =>
      api.send(`scraping/jobs/${jobId}`, scrapeJobDetailSchema, { method: 'GET', signal }),
    refetchInterval: LIVE_MS,
  });

export const runLogQuery = (api: Api, runId: string) =>
  queryOptions({
    queryKey: ['scraping', 'runs', runId, 'log'] as const,
    queryFn: ({ signal }) =>
      api.send(`scraping/runs/${runId}/log`, scrapeLogSchema, { method: 'GET', signal }),
    refetchInterval: LIVE_MS,
  });

export const runRefusalsQuery = (api: Api, runId: string) =>
  queryOptions({
    queryKey: ['scraping', 'runs', runId, 'refused'] as const,
    queryFn: ({ signal }) =>
      api.send(`scraping/runs/${runId}/refused`, scrapeRefusalsSchema, { method: 'GET', signal }),
    refetchInterval: LIVE_MS,
  });

export const corpusTotalsQuery = (api: Api) =>
  queryOptions({
    queryKey: ['scraping', 'totals'] as const,
    queryFn: ({ signal }) =>
      api.send('scraping/totals?days=14', corpusTotalsSchema, { method: 'GET', signal }),
    // Not on a timer: read again when a run finishes (features/scraping/CorpusTotals.tsx).
    retry: retryFigures,
    retryDelay,
  });

/** The sentiment rescan's progress: every few seconds while it runs, not again once it has finished. */
export const sentimentRescanQuery = (api: Api) =>
  queryOptions({
    queryKey: ['scraping', 'sentiment-rescan'] as const,
    queryFn: ({ signal }) =>
      api.send('scraping/sentiment-rescan', sentimentRescanStatusSchema, { method: 'GET', signal }),
    refetchInterval: (query) => {
      const rescan = query.state.data?.rescan;
      return rescan && !rescan.finished_at ? LIVE_MS : false;
    },
  });

/** Source credentials: read when the screen opens and after a change (not on a timer). */
export const credentialsQuery = (api: Api) =>
  queryOptions({
    queryKey: ['scraping', 'credentials'] as const,
    queryFn: ({ signal }) =>
      api.send('scraping/credentials', credentialListSchema, { method: 'GET', signal }),
  });

export const createCredential = (api: Api, body: CreateCredentialBody) =>
  api.send('scraping/credentials', credentialSchema, { method: 'POST', body });

/** New fields (all of them), name or daily quota for stored credentials. */
export const replaceCredential = (
  api: Api,
  id: string,
  body: { name?: string; secret?: Record<string, string>; daily_quota?: number },
) => api.send(`scraping/credentials/${id}`, credentialSchema, { method: 'PATCH', body });

export const deleteCredential = (api: Api, id: string) =>
  api.send(`scraping/credentials/${id}`, z.undefined(), { method: 'DELETE' });

export const testCredential = (api: Api, id: string) =>
  api.send(`scraping/credentials/${id}/test`, credentialTestSchema, { method: 'POST' });

export const createJob = (api: Api, body: JobInput) =>
  api.send('scraping/jobs', scrapeJobSchema, { method: 'POST', body });

export const updateJob = (api: Api, jobId: string, body: Partial<JobInput>) =>
  api.send(`scraping/jobs/${jobId}`, scrapeJobSchema, { method: 'PATCH', body });

export const jobAction = (api: Api, jobId: string, action: 'run' | 'pause' | 'resume' | 'cancel') =>
  api.send(`scraping/jobs/${jobId}/${action}`, scrapeJobSchema, { method: 'POST' });

/** One POST of the file with the stored access token; resolves with the status and the answer's text. */
function postFile(
  url: string,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<{ status: number; text: string }> {
  const read = readTokens();
  const token = read.ok ? read.tokens?.access_token : undefined;
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText });
    xhr.onerror = () =>
      reject(
        new Error('The upload failed: the server could not be reached. Check the connection and try again.'),
      );
    xhr.send(file);
  });
}

/**
 * Uploads a corpus file with its progress (fetch cannot report an upload's progress; XMLHttpRequest can), so it goes
 * around the API client: the session is refreshed first through the client (users/me refreshes an expired access
 * token), and the server checks the token when the request starts, before the body. Should the token still be refused
 * (it expired between the two), the session is refreshed again and the file sent once more.
 */
export async function uploadCorpusFile(
  api: Api,
  apiBaseUrl: string,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<ScrapeJob> {
  const format = /\.csv$/i.test(file.name) ? 'csv' : 'ndjson';
  const url = `${apiBaseUrl.replace(/\/$/, '')}/scraping/uploads?format=${format}&file_name=${encodeURIComponent(file.name)}`;
  await api.getMe();
  let answer = await postFile(url, file, onProgress);
  if (answer.status === 401) {
    onProgress(0);
    await api.getMe();
    answer = await postFile(url, file, onProgress);
  }
  if (answer.status === 201) return scrapeJobSchema.parse(JSON.parse(answer.text));
  if (answer.status === 401)
    throw new Error('Your session has ended: sign in again, then upload the file again.');
  const message = (() => {
    try {
      return (JSON.parse(answer.text) as { message?: string }).message;
    } catch {
      return undefined;
    }
  })();
  throw new Error(message ?? `The upload failed (HTTP ${answer.status}). Try again.`);
}
