import { createFileRoute } from '@tanstack/react-router';
import * as z from 'zod/mini';
import { ComparePage } from '@/features/insight/ComparePage';

/**
 * ?compare=<id>,<id>… names the saved queries compared (2 to 5, in order); anything else (too many, too long, a
 * repeated id) is dropped and the page starts from the view's saved query.
 */
const compareSearchSchema = z.object({
  compare: z.catch(
    z.optional(
      z.string().check(
        z.maxLength(5 * 64 + 4),
        z.refine((text) => {
          const ids = text.split(',');
          return (
            ids.length <= 5 && new Set(ids).size === ids.length && ids.every((id) => /^[\w-]{1,64}$/.test(id))
          );
        }),
      ),
    ),
    undefined,
  ),
});

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/compare')({
  validateSearch: compareSearchSchema,
  component: ComparePage,
});
