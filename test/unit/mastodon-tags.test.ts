// Which hashtag streams a Mastodon instance is read through for a tracked query (server/scraping/streams/
// mastodon-tags.ts): the hashtags named outside a NOT; and whether those streams alone bring all the query matches
// (its cover is hashtags alone).
import { describe, expect, it } from 'vitest';
import { parseQuery } from '@server/query/index';
import { queryTags } from '@server/scraping/streams/mastodon-tags';

const tagsOf = (text: string) => {
  const parsed = parseQuery(text);
  if (!parsed.ok) throw new Error(parsed.errors[0]!.message);
  return queryTags(parsed.ast);
};

describe('the hashtag streams of a query', () => {
  it('streams the hashtags named outside a NOT, lower case', () => {
    expect(tagsOf('#CloudNest OR (outage AND #status) NOT #ignored').tags).toEqual(['cloudnest', 'status']);
    expect(tagsOf('cloudnest').tags).toEqual([]);
  });

  it('says the hashtag streams bring all a query of hashtags alone matches, and not one with words', () => {
    expect(tagsOf('#cloudnest OR #murmur')).toEqual({
      tags: ['cloudnest', 'murmur'],
      enough: ['cloudnest', 'murmur'],
    });
    // Every match carries #cloudnest: its stream is enough, though #launch is streamed too.
    expect(tagsOf('#cloudnest AND (#launch OR day)').enough).toEqual(['cloudnest']);
    expect(tagsOf('#cloudnest OR outage').enough).toBeNull();
    expect(tagsOf('NOT #cloudnest').enough).toBeNull();
  });
});
