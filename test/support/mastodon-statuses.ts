// A page of Mastodon statuses as an instance's API answers it, for the collection tests that replay a slow instance:
// ids counting down from 1000, `perPage` to a page, all by one account.

/** The statuses of `page` (0-based) about `topic`; their uris carry `topic` so that two topics' statuses differ. */
export function mastodonStatuses(topic: string, page: number, perPage: number) {
  return Array.from({ length: perPage }, (_, i) => {
    const id = String(1000 - page * perPage - i);
    return {
      id,
      uri: `https://slow.example/users/ana/statuses/${topic}-${id}`,
      created_at: `2025-05-01T10:${String(page).padStart(2, '0')}:0${i}.000Z`,
      language: 'en',
      content: `<p>Status ${id} about ${topic}</p>`,
      replies_count: 0,
      reblogs_count: 0,
      favourites_count: 1,
      account: {
        id: '1',
        username: 'ana',
        acct: 'ana',
        display_name: 'Ana',
        url: 'https://slow.example/@ana',
      },
      media_attachments: [],
      tags: [],
      mentions: [],
    };
  });
}
