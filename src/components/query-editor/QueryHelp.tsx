// The query language in brief (from server/query/README.md), as a disclosure beside the editor.
import { QUERY_LIMITS } from '@contract/social-query';
const SYNTAX: Array<[string, string]> = [
  ['coffee', 'the word, whole, any case (no stemming: run does not find running; write run*)'],
  ['coffee tea, coffee AND tea', 'both words (terms side by side are ANDed)'],
  ['coffee OR tea', 'either'],
  ['{NASA}', 'the word in exactly this case (not nasa or Nasa)'],
  ['organi?ation', 'one character for each ?: organisation and organization'],
  ['NOT decaf', 'without it'],
  ['(coffee OR tea) NOT decaf', 'grouping'],
  ['"flat white"', 'the words in this order, next to each other'],
  ['barist*', 'a word starting with barist (2 characters or more before *)'],
  ['coffee NEAR/3 shop', 'at most 3 word positions apart, either order (NEAR/1 to NEAR/20)'],
  ['coffee NEAR/3f shop', 'shop at most 3 positions after coffee, in this order'],
  ['"flat white"~2', 'both words in any order within 4 positions (2 + 2; ~1 to ~20)'],
  ['#LatteArt', 'with the hashtag'],
  ['@starbucks', 'mentioning the account'],
  ['author:jane_doe', 'written by the account with this handle'],
  ['platform:x', 'from the platform (also source:x; site:x with a platform’s name)'],
  ['site:bbc.co.uk', 'linking to the site or its subdomains (also url:https://…)'],
  ['instance:mastodon.social', 'by an author on that fediverse server'],
  ['subreddit:android', 'Reddit posts in the community r/android (also subreddit:r/android)'],
  ['lang:ko', 'in the language (the post’s detected language)'],
  ['country:KR', 'by an author from the country (two-letter code)'],
  ['is:reply', 'replies (also is:original, is:repost, is:quote)'],
  ['followers:[1000 TO *]', 'by authors with 1,000 followers or more; engagement:[10 TO 500] likewise'],
  ['list(misspellings)', 'any word or phrase of the workspace’s list misspellings (Settings › Lists)'],
  ['author:list(competitors)', 'written by any author of the list competitors'],
  ['site:list(press)', 'linking to any site of the list press'],
];

const NOTES = [
  'Operators are upper case: AND, OR, NOT, NEAR/n. Lower-case and, or, not are ordinary words.',
  'Precedence, tightest first: NOT, NEAR/n, AND, OR. So a b OR c is (a AND b) OR c.',
  'Chinese, Japanese, Korean and Thai words and emoji match as parts of the text: 東京 finds 東京タワー.',
  'Words run up to a space, a parenthesis or a quote; quote a link ("https://…").',
  'Comments go between <<< and >>>; a query may span several lines.',
  'A query reads its lists as they are when it runs: editing a list changes every query that reads it. Each item counts as a term.',
  `At most ${QUERY_LIMITS.maxLength} characters, ${QUERY_LIMITS.maxTerms} terms and ${QUERY_LIMITS.maxDepth} levels of parentheses.`,
];

/** `modEnter`: what Ctrl+Enter does where the editor is (discover searches; the saved-query form updates its preview). */
export function QueryHelp({ modEnter = 'runs the search at once' }: { modEnter?: string }) {
  return (
    <details className="query-help">
      <summary>Query syntax and examples</summary>
      <table className="table query-help-table">
        <thead>
          <tr>
            <th scope="col">Write</th>
            <th scope="col">Finds posts</th>
          </tr>
        </thead>
        <tbody>
          {SYNTAX.map(([example, meaning]) => (
            <tr key={example}>
              <th scope="row">
                <code>{example}</code>
              </th>
              <td>{meaning}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <ul className="small">
        {NOTES.map((note) => (
          <li key={note}>{note}</li>
        ))}
      </ul>
      <p className="small muted">Ctrl+Enter (⌘+Enter) {modEnter}; Ctrl+Space lists completions.</p>
    </details>
  );
}
