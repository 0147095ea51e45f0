// The overview answers from the analytics store when the store holds exactly the corpus version PostgreSQL's
// snapshot sees, and the answer is the same as PostgreSQL's, field by field; a store that is behind (or not ready) is
// not read, and the answer comes from PostgreSQL. The buckets alone (what alert rules judge) are the overview's. Through the dashboard route too: the running service is what the
// route reads.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AnalyticsService } from '@server/analytics/service';
import { overview, overviewBuckets } from '@server/social/insights/overview';
import { createTestServer, type TestServer } from '@test/support/server-harness';
import {
  contextOf,
  RANGES,
  rounded,
  typedCases,
  type Case,
  storeBehind,
  runningService,
  generatedCorpus,
} from './dashboards.fixtures';

let server: TestServer;
let running: Awaited<ReturnType<typeof runningService>>;
let service: AnalyticsService;

beforeAll(async () => {
  server = await createTestServer();
  await generatedCorpus(server, 31);
  running = await runningService(server, 'overview-source-');
  service = running.service;
}, 240_000);
afterAll(async () => {
  await running?.close();
  await server?.close();
});

const cases: Case[] = [
  { name: 'every post, 30 days', zone: 'America/New_York', range: RANGES['30 days of days']! },
  {
    name: 'every post, hours over DST',
    zone: 'America/New_York',
    range: RANGES['hours over the clocks going forward']!,
  },
  ...typedCases(),
];

describe('the overview from the analytics store', () => {
  it.each(cases)('equals PostgreSQL’s answer, read from the store: $name', async (c) => {
    const context = await contextOf(server, c);
    const query = vi.spyOn(service.store!, 'query');
    const fromStore = await overview(server.db, context, service);
    expect(query).toHaveBeenCalled();
    query.mockRestore();
    expect(rounded(fromStore)).toEqual(rounded(await overview(server.db, context)));
  });

  it.each(cases)(
    'gives the buckets alone as the overview’s over_time, from either source: $name',
    async (c) => {
      const context = await contextOf(server, c);
      const expected = (await overview(server.db, context)).over_time.map(
        ({ start, mentions, negative }) => ({
          start,
          mentions,
          negative,
        }),
      );
      expect(await overviewBuckets(server.db, context)).toEqual(expected);
      const query = vi.spyOn(service.store!, 'query');
      expect(await overviewBuckets(server.db, context, service)).toEqual(expected);
      expect(query).toHaveBeenCalledTimes(1);
      query.mockRestore();
    },
  );

  it('is not read when it is behind PostgreSQL: the answer comes from PostgreSQL', async () => {
    const context = await contextOf(server, cases[0]!);
    const behind = storeBehind(service);
    const query = vi.spyOn(service.store!, 'query');
    const answer = await overview(server.db, context, behind);
    expect(query).not.toHaveBeenCalled();
    query.mockRestore();
    expect(answer).toEqual(await overview(server.db, context));
  });
});
