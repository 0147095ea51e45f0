import { createFileRoute } from '@tanstack/react-router';
import * as z from 'zod/mini';
import { ComparePage } from '@/features/insight/ComparePage';

/** 1 to 5 ids, each once, comma-separated. */
const idList = z.string().check(
  z.maxLength(5 * 64 + 4),
  z.refine((text) => {
    const ids = text.split(',');
    return ids.length <= 5 && new Set(ids).size === ids.length && ids.every((id) => /^[\w-]{1,64}$/.test(id));
  }),
);

/**
 * ?mode=tags compares tags within a saved query (absent: saved queries); ?compare=<id>,<id>… names the saved queries
 * compared and ?tags=<id>,<id>… the tags (2 to 5, in order). Anything else (an unknown mode, too many, too long, a
 * repeated id) is dropped and the page starts from its defaults.
 */
const compareSearchSchema = z.object({
  mode: z.catch(z.optional(z.literal('tags')), undefined),
  compare: z.catch(z.optional(idList), undefined),
  tags: z.catch(z.optional(idList), undefined),
});

export const Route = createFileRoute('/_authed/workspace/$workspaceId/insight/compare')({
  validateSearch: compareSearchSchema,
  component: ComparePage,
});
