// One message of Bluesky's Jetstream (https://github.com/bluesky-social/jetstream): JSON with the repository's DID,
// `time_us` (the stream's cursor, microseconds since the epoch) and `kind` — `commit` (a record created, updated or
// deleted: `commit.operation`, `commit.collection`, `commit.rkey`, and for a create or an update `commit.record`), or
// `identity` and `account`, which every subscriber receives whatever collections it asked for. Each message is checked
// here (zod) and becomes what the consumer does with it: a post to match and import, a post to take out of the corpus,
// nothing (another kind or collection), or a refusal with its reason.
import * as z from 'zod/mini';
import type { $ZodError, $ZodIssue } from 'zod/v4/core';
import { describeIssue } from '@server/social/corpus/import/schema';
import { mapPost } from '../connectors/bluesky';
import { rawOf, type CollectedItem } from '../connectors/types';

export const POST_COLLECTION = 'app.bsky.feed.post';

const did = z
  .string()
  .check(z.regex(/^did:[a-z]+:[A-Za-z0-9._:%-]{1,2000}$/, { error: 'must be a DID (did:plc:…, did:web:…)' }));
const timeUs = z.number().check(z.int(), z.gt(0), z.lte(Number.MAX_SAFE_INTEGER));
/** A record key (atproto's syntax: 1–512 of A–Z a–z 0–9 . - _ : ~, not "." or ".."). */
const rkey = z.string().check(
  z.regex(/^[A-Za-z0-9._:~-]{1,512}$/, { error: 'must be a record key' }),
  z.refine((value) => value !== '.' && value !== '..', { error: 'must be a record key' }),
);

/** What a post record must have to be a post; the rest (embed, labels, …) is read by the connector's mapping. */
const postRecord = z.looseObject({
  text: z.string(),
  createdAt: z.string(),
  langs: z.optional(z.array(z.string())),
  facets: z.optional(z.array(z.unknown())),
  reply: z.optional(z.looseObject({})),
  embed: z.optional(z.looseObject({})),
});

const commit = z.looseObject({
  did,
  time_us: timeUs,
  kind: z.literal('commit'),
  commit: z.looseObject({
    operation: z.enum(['create', 'update', 'delete']),
    collection: z.string(),
    rkey,
    record: z.optional(z.unknown()),
  }),
});

const other = z.looseObject({ did, time_us: timeUs, kind: z.enum(['identity', 'account']) });

const envelope = z.looseObject({ kind: z.string() });

/** What one message asks of the consumer. */
export type StreamEvent =
  /** A post created or updated: its corpus row (to match, then import). */
  | { type: 'post'; timeUs: number; key: string; item: Extract<CollectedItem, { row: unknown }> }
  /** A post deleted: taken out of the corpus if it is there. */
  | { type: 'delete'; timeUs: number; key: string }
  /** Another kind of event or another collection: only the cursor moves. */
  | { type: 'skip'; timeUs: number }
  /** Not a message the consumer can read; `timeUs` when the message said it. */
  | { type: 'refused'; timeUs?: number; ref: string; reason: string; raw: string };

/** The post's AT URI: the corpus key the Bluesky connector stores posts under (external_id). */
const postKey = (repo: string, key: string) => `at://${repo}/${POST_COLLECTION}/${key}`;

const reasons = (error: $ZodError, under: PropertyKey[] = []) =>
  error.issues
    .map((issue) => describeIssue({ ...issue, path: [...under, ...issue.path] } as $ZodIssue))
    .join('; ');

/** Reads one message (its text as received). Never throws. */
export function readEvent(text: string): StreamEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      type: 'refused',
      ref: '(not JSON)',
      reason: `not JSON: ${(error as Error).message}`,
      raw: rawOf(text),
    };
  }
  const head = z.safeParse(envelope, value, { reportInput: true });
  if (!head.success) {
    return { type: 'refused', ref: '(no kind)', reason: reasons(head.error), raw: rawOf(text) };
  }
  const timeOf = () => {
    const t = (value as { time_us?: unknown }).time_us;
    return z.safeParse(timeUs, t).success ? (t as number) : undefined;
  };
  if (head.data.kind !== 'commit') {
    const parsed = z.safeParse(other, value, { reportInput: true });
    return parsed.success
      ? { type: 'skip', timeUs: parsed.data.time_us }
      : {
          type: 'refused',
          timeUs: timeOf(),
          ref: `(${head.data.kind})`,
          reason: reasons(parsed.error),
          raw: rawOf(text),
        };
  }
  const parsed = z.safeParse(commit, value, { reportInput: true });
  if (!parsed.success) {
    return {
      type: 'refused',
      timeUs: timeOf(),
      ref: '(commit)',
      reason: reasons(parsed.error),
      raw: rawOf(text),
    };
  }
  const event = parsed.data;
  const { operation, collection, record } = event.commit;
  if (collection !== POST_COLLECTION) return { type: 'skip', timeUs: event.time_us };
  const key = postKey(event.did, event.commit.rkey);
  if (operation === 'delete') return { type: 'delete', timeUs: event.time_us, key };
  const post = z.safeParse(postRecord, record, { reportInput: true });
  if (!post.success) {
    const because =
      record === undefined ? 'commit.record: required' : reasons(post.error, ['commit', 'record']);
    return { type: 'refused', timeUs: event.time_us, ref: key, reason: because, raw: rawOf(text) };
  }
  // The post as the AppView would show it, without counts (a new post has none; a stored post keeps its own): its
  // author by DID, whose handle the stream does not carry (the consumer puts a stored profile's handle back).
  const item = mapPost({
    uri: key,
    author: { did: event.did, handle: event.did },
    record: post.data,
  });
  if ('row' in item) return { type: 'post', timeUs: event.time_us, key, item };
  const reason = 'reason' in item ? item.reason : 'not a post';
  return { type: 'refused', timeUs: event.time_us, ref: key, reason, raw: item.raw };
}
