// A dashboard (or Compare) as a PDF report (social API, under /social; report.ts): any member of the workspace asks for the view
// they see, and gets the file. Limited per account (each report is a Chromium process for a few seconds).
import rateLimit from '@fastify/rate-limit';
import type { AddressInfo } from 'node:net';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import { reportBodySchema } from '@contract/share-links';
import { ApiError } from '@server/errors';
import { bearer, errorResponses } from '@server/openapi';
import { perAccountLimit } from '@server/social/rate-limit';
import { workspaceAccessOf, type WorkspaceRequirement } from '@server/workspaces/route-access';
import { checkSharedView } from './links';
import { REPORT_BUDGET_MS, REPORTS_WAITING_PER_WORKSPACE, reportPrinter } from './report';
import { reportPageOrigin } from './report-origin';

/** Reports a minute by one account. */
const REPORTS_PER_MINUTE = 6;
const anyMember: WorkspaceRequirement = { from: 'body', minimum: 'viewer' };

export const reportRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app.deps;
  const printer = reportPrinter(app.deps.reports);
  app.addHook('onRequest', app.requireUser);
  // Counted once the body is valid (preHandler): a malformed request is a 400, never a report's turn.
  await app.register(rateLimit, {
    global: true,
    hook: 'preHandler',
    ...perAccountLimit('reports', REPORTS_PER_MINUTE).rateLimit,
  });

  app.post(
    '/insights/report',
    {
      config: { workspace: anyMember },
      schema: {
        tags: ['sharing'],
        security: bearer,
        summary:
          "A dashboard view (or Compare's) as a PDF report: every chart drawn with its table, the query, range and zone",
        description:
          "Body: workspace_id, the dashboard ('compare' for Compare) and the view (the dashboard's request without " +
          "workspace_id and cursor — Compare's: saved_query_ids, or saved_query_id and tag_ids, then filters, refine " +
          '—, its range required). The report is ' +
          'the view as its read-only page draws it, printed by the ' +
          "server's Chromium (REPORT_CHROMIUM_PATH): the title, query, range, time zone, every chart with its table, " +
          'the "what is counted" sentences and the time it was made; a list shows its first page. It counts as one ' +
          'dashboard request of the month. 400 for a view its dashboard would refuse; 404 for a saved query not in ' +
          `the workspace; 429 past ${REPORTS_PER_MINUTE} reports a minute by one account; 503 busy when ` +
          `${REPORTS_WAITING_PER_WORKSPACE} reports of the workspace are already waiting (workspaces take turns), ` +
          `report_failed when Chromium does not start or the report is not ready within ${REPORT_BUDGET_MS / 1000} ` +
          's, report_unavailable without Chromium.',
        body: reportBodySchema,
        response: {
          200: { description: 'The PDF file', content: { 'application/pdf': { schema: z.string() } } },
          ...errorResponses(400, 404, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const { workspace } = workspaceAccessOf(request);
      const { dashboard, view } = request.body;
      await checkSharedView(db, workspace, dashboard, view);
      const address = app.server.address() as AddressInfo | string | null;
      if (!address || typeof address === 'string') {
        throw new ApiError(
          503,
          'report_unavailable',
          'Reports cannot be made: the server does not listen on a port.',
        );
      }
      const host =
        address.family === 'IPv6'
          ? `[${address.address === '::' ? '::1' : address.address}]`
          : address.address === '0.0.0.0'
            ? '127.0.0.1'
            : address.address;
      const pdf = await printer.print({
        db,
        page: reportPageOrigin({ spaDir: app.deps.spaDir, appUrl: config.APP_URL }),
        serverOrigin: `http://${host}:${address.port}`,
        log: (line) => request.log.warn(line),
        chromiumPath: config.REPORT_CHROMIUM_PATH,
        workspaceId: workspace.id,
        userId: request.userId,
        dashboard,
        view,
      });
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .type('application/pdf')
        .header('content-disposition', `attachment; filename="murmur-${dashboard}-${day}.pdf"`)
        .send(pdf as unknown as string);
    },
  );
};
