// The generator's corpus as import rows (each post with its author's profile fields inline): the importer's input for
// bench:import and bench:collect's importer figure.
import { planCorpus } from '@server/social/corpus/generate/plan';
import type { ImportRowInput } from '@server/social/corpus/import/schema';

/** The generator's corpus as import rows: each post with its author's profile fields inline. */
export function* generatedImportRows(posts: number, seed: number, end: number): Generator<ImportRowInput> {
  const plan = planCorpus({ posts, seed, end });
  for (const post of plan.posts()) {
    const author = plan.profiles[post.authorIndex]!;
    yield {
      platform: post.platform,
      external_id: post.externalId,
      author_external_id: author.externalId,
      author_handle: author.handle,
      author_display_name: author.displayName,
      author_followers: author.followers,
      author_following: author.following,
      author_verified: author.verified,
      author_bio: author.bio,
      author_country: author.country,
      author_language: author.language,
      author_avatar_url: author.avatarUrl,
      text: post.text,
      language: post.language,
      posted_at: new Date(post.postedAt).toISOString(),
      kind: post.kind,
      media: post.media,
      likes: post.likes,
      comments: post.comments,
      shares: post.shares,
      views: post.views,
      url: post.url,
      hashtags: post.hashtags,
      mentions: post.mentions,
      domains: post.domains,
    };
  }
}
