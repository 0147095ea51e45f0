import { createFileRoute } from '@tanstack/react-router';
import * as z from 'zod/mini';
import { OverviewPage } from '../../../../../features/insight/pages';

/** ?query=<saved query id> selects the saved query the dashboard shows (from the saved queries list). */
const overviewSearchSchema = z.object({
  query: z.catch(z.optional(z.uuid()), undefined),
});

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/overview')({
  validateSearch: overviewSearchSchema,
  component: OverviewPage,
});
