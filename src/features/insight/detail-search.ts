// The post and profile pages' own search params beside the dashboards' scope (insight-search.ts): where the reader
// came from (`back`), so the page's back link returns there with the same scope and a copied link keeps it; the
// profile page adds its posts list's sort and page (list-search.ts). Invalid values fall back to none.
import * as z from 'zod/mini';
import { postListSearchSchema } from './list-search';

/** The pages a post or a profile is opened from. */
const BACK_TARGETS = [
  'discover',
  'overview',
  'conversation',
  'posts',
  'people',
  'filtered-posts',
  'filtered-profiles',
  'profile',
] as const;
export type BackTarget = (typeof BACK_TARGETS)[number];

const back = z.catch(z.optional(z.enum(BACK_TARGETS)), undefined);

export const postPageSearchSchema = z.object({ back });
export const profilePageSearchSchema = z.object({ ...postListSearchSchema.shape, back });

/** A post's or profile's id in the address: a whole number from 1 (anything else is no such page). */
export const parseCorpusId = (text: string): number | null =>
  /^[1-9]\d{0,15}$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : null;
