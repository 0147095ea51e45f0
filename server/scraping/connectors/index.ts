// The connector of each source kind (uploads go through the corpus importer instead: server/scraping/runner.ts), and
// the "test connection" of each kind of credential.
import type { CredentialKind, SourceKind, SourceParams } from '@contract/scraping';
import { blueskySearch } from './bluesky';
import { feedConnector } from './feed';
import { hackernewsSearch } from './hacker-news';
import { mastodonAccount, mastodonHashtag } from './mastodon';
import { redditSearch, redditSubreddit, redditTest } from './reddit-api';
import type { Connector, CredentialTest } from './types';
import { xSearch, xTest } from './x-recent';
import { youtubeChannel, youtubeSearch, youtubeTest } from './youtube-data';

const CONNECTORS: Record<Exclude<SourceKind, 'upload'>, Connector<never>> = {
  mastodon_hashtag: mastodonHashtag,
  mastodon_account: mastodonAccount,
  bluesky_search: blueskySearch,
  feed: feedConnector,
  reddit_search: redditSearch,
  reddit_subreddit: redditSubreddit,
  youtube_search: youtubeSearch,
  youtube_channel: youtubeChannel,
  hackernews_search: hackernewsSearch,
  x_search: xSearch,
};

export function connectorFor<P extends Exclude<SourceParams, { source: 'upload' }>>(params: P): Connector<P> {
  return CONNECTORS[params.source] as unknown as Connector<P>;
}

export const CREDENTIAL_TESTS: Record<CredentialKind, CredentialTest> = {
  reddit: redditTest,
  youtube: youtubeTest,
  x: xTest,
};
