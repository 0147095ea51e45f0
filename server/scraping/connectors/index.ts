// The connector of each source kind (uploads go through the corpus importer instead: server/scraping/runner.ts).
import type { SourceKind, SourceParams } from '@contract/scraping';
import { blueskySearch } from './bluesky';
import { feedConnector } from './feed';
import { mastodonAccount, mastodonHashtag } from './mastodon';
import type { Connector } from './types';

const CONNECTORS: Record<Exclude<SourceKind, 'upload'>, Connector<never>> = {
  mastodon_hashtag: mastodonHashtag,
  mastodon_account: mastodonAccount,
  bluesky_search: blueskySearch,
  feed: feedConnector,
};

export function connectorFor<P extends Exclude<SourceParams, { source: 'upload' }>>(params: P): Connector<P> {
  return CONNECTORS[params.source] as unknown as Connector<P>;
}
