// What a client can make Fastify itself refuse (a body that is not JSON, an empty one, one too large, one of a type no
// parser takes, a path it cannot decode or that is too long): answered with the API's codes and shape, in prod,
// never Fastify's FST_ERR_ codes; the status stays what it was.
import { connect, type AddressInfo } from 'node:net';
import * as z from 'zod/mini';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorResponseSchema } from '@contract/errors';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import { as, createWorkspace, type Person } from '@test/support/workspaces.fixtures';

let prod: TestServer;
let owner: Person;
let workspaceId: string;

beforeAll(async () => {
  prod = await createTestServer({ APP_ENV: 'prod' });
  owner = await prod.createUser();
  workspaceId = (await createWorkspace(prod, [[owner, 'owner']])).id;
});
afterAll(() => prod?.close());

const json = { 'content-type': 'application/json' };

interface Probe {
  name: string;
  person: 'signed out' | 'signed in';
  request: Parameters<typeof as>[2];
  status: number;
  error: string;
}

const probes = (): Probe[] => [
  {
    name: 'a body that is not JSON',
    person: 'signed out',
    request: { method: 'POST', url: '/api/auth/login', headers: json, payload: '{"oauth_token": ' },
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'a JSON body setting __proto__',
    person: 'signed out',
    request: {
      method: 'POST',
      url: '/api/auth/login',
      headers: json,
      payload: '{"__proto__": {"admin": true}, "oauth_token": "x", "vendor_type": "google"}',
    },
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'an empty JSON body',
    person: 'signed in',
    request: { method: 'POST', url: '/api/workspaces', headers: json, payload: '' },
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'a body shorter than its Content-Length',
    person: 'signed in',
    request: {
      method: 'POST',
      url: '/api/workspaces',
      headers: { ...json, 'content-length': '100' },
      payload: '{"name":"x"}',
    },
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'a body over the limit',
    person: 'signed out',
    request: {
      method: 'POST',
      url: '/api/auth/login',
      headers: json,
      payload: JSON.stringify({ oauth_token: 'x'.repeat(300 * 1024), vendor_type: 'google' }),
    },
    status: 413,
    error: 'too_large',
  },
  {
    name: 'a body of a type no parser takes',
    person: 'signed in',
    request: {
      method: 'PATCH',
      url: `/api/workspaces/${workspaceId}`,
      headers: { 'content-type': 'application/xml' },
      payload: '<name>x</name>',
    },
    status: 415,
    error: 'unsupported_media_type',
  },
  {
    name: 'a path that is not valid percent-encoding',
    person: 'signed in',
    request: { method: 'GET', url: '/api/workspaces/%E0%A4%A' },
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'a path parameter over 100 characters',
    person: 'signed in',
    request: { method: 'GET', url: `/api/workspaces/${'a'.repeat(101)}` },
    status: 414,
    error: 'too_large',
  },
];

describe("Fastify's own refusals", () => {
  it.each(probes().map((probe) => [probe.name, probe] as const))(
    '%s: the API code, not FST_ERR_',
    async (_, probe) => {
      const res = await as(prod, probe.person === 'signed in' ? owner : null, probe.request);
      expect(res.statusCode, res.body).toBe(probe.status);
      expect(res.body).not.toMatch(/FST_/);
      const body = z.parse(errorResponseSchema, res.json());
      expect(body.error).toBe(probe.error);
      expect(body.message).toMatch(/^[A-Z].*\.$/);
    },
  );
});

describe('a request the HTTP parser cannot read', () => {
  /** Sends `raw` on a connection of its own and resolves with everything the server wrote before closing it. */
  async function sendRaw(raw: string): Promise<string> {
    const { port } = prod.app.server.address() as AddressInfo;
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.on('connect', () => socket.write(raw));
    });
  }

  it('is answered in the API shape: 400 invalid_request, or 431 too_large for headers over the limit', async () => {
    await prod.app.listen({ host: '127.0.0.1', port: 0 });
    const cases = [
      { raw: 'NOT A REQUEST\r\n\r\n', status: 400, error: 'invalid_request' },
      {
        raw: 'GET /api/health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
        status: 400,
        error: 'invalid_request',
      },
      {
        raw: `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
        status: 431,
        error: 'too_large',
      },
    ];
    for (const { raw, status, error } of cases) {
      const answer = await sendRaw(raw);
      expect(answer, raw.slice(0, 40)).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      const body = z.parse(errorResponseSchema, JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)));
      expect(body.error).toBe(error);
    }
  });
});
