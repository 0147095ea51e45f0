// The dashboards' own search params beside the shared scope (insight-search.ts): a list's sort and page (a keyset
// cursor and its number), the people leaderboard's ranking. Invalid values fall back to the default (the first page,
// the default sort). Kept apart from the pages so the route tree (in the first load) does not pull the charts in.
import * as z from 'zod/mini';
import { POST_SORTS, PROFILE_SORTS } from '@contract/sorts';

const listSearchShape = {
  cursor: z.catch(z.optional(z.string().check(z.minLength(1), z.maxLength(512))), undefined),
  page: z.catch(z.optional(z.string().check(z.regex(/^[1-9]\d{0,5}$/))), undefined),
};
export const postListSearchSchema = z.object({
  ...listSearchShape,
  sort: z.catch(z.optional(z.enum(POST_SORTS)), undefined),
});
export const profileListSearchSchema = z.object({
  ...listSearchShape,
  sort: z.catch(z.optional(z.enum(PROFILE_SORTS)), undefined),
});
export const peopleSearchSchema = z.object({
  sort: z.catch(z.optional(z.enum(PROFILE_SORTS)), undefined),
});
