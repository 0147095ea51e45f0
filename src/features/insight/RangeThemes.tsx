// Themes of the range on the conversation dashboard: the range's frequent words grouped by the posts they share
// (POST /social/insights/themes, counted exactly: server/social/insights/themes.ts). Each theme lists its words, its
// posts and their rise against the range before, its sentiment and its volume per bucket; its button opens its posts
// (the words as one `term` refinement), and its top posts are listed under it.
import { useQuery } from '@tanstack/react-query';
import { themeRefine, type Theme, type ThemesResponse } from '@contract/insights-themes';
import { themesQuery } from '@/api/insights';
import { apiProblem } from '@/api/errors';
import { useApp } from '@/components/use-app';
import { PostCard } from '@/components/PostCard';
import { Sparkline } from '@/components/Sparkline';
import { Counted } from './ChartCard';
import { useDetailLinks } from './DetailLinks';
import { formatDecimal, formatWhole } from './insight-format';
import { useInsightView } from './insight-view';
import { useReadOnly } from './read-only';

/** A theme's top posts: its words are not the view's query's to mark. */
const NO_PATTERNS: readonly string[] = [];
/** The words a theme's button names (all are in its label and its drill-down). */
const SHOWN_WORDS = 6;

export function RangeThemes() {
  const readOnly = useReadOnly();
  const { api } = useApp();
  const { body } = useInsightView();
  const result = useQuery({ ...themesQuery(api, body), enabled: !readOnly });
  if (readOnly) return null;
  return (
    <section className="chart-card wide" aria-labelledby="range-themes-title" aria-busy={result.isPending}>
      <h2 id="range-themes-title">Themes</h2>
      <p className="small muted">
        The range&rsquo;s most frequent words, grouped by the posts they share; each theme opens its posts.
      </p>
      {result.isPending ? (
        <p role="status" className="muted">
          Counting the words of this range and the posts they share…
        </p>
      ) : result.isError ? (
        <p role="alert" className="form-error">
          {apiProblem(result.error).message}
        </p>
      ) : (
        <ThemesAnswer data={result.data} />
      )}
    </section>
  );
}

function riseText(theme: Theme): string {
  return theme.rise === null
    ? 'none in the range before'
    : `×${formatDecimal(theme.rise)} against the range before (${formatWhole(theme.previous_posts)})`;
}

function ThemesAnswer({ data }: { data: ThemesResponse }) {
  const { drill } = useInsightView();
  const links = useDetailLinks('conversation');
  return (
    <>
      {data.themes.length ? (
        <ol className="themes-list">
          {data.themes.map((theme) => {
            const words = theme.terms.map((t) => t.value);
            const { positive, neutral, negative, not_rated, average } = theme.sentiment;
            const perBucket = theme.over_time.map((b) => b.posts);
            return (
              <li key={words.join(' ')} className="theme">
                <h3>
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => drill([themeRefine(theme)])}
                    aria-label={`Posts with any of ${words.join(', ')}`}
                  >
                    {words.slice(0, SHOWN_WORDS).join(' · ')}
                    {words.length > SHOWN_WORDS ? ` · +${words.length - SHOWN_WORDS}` : ''}
                  </button>
                </h3>
                <p className="theme-figures">
                  <strong>{formatWhole(theme.posts)} posts</strong>, {riseText(theme)}. Sentiment:{' '}
                  {formatWhole(positive)} positive, {formatWhole(neutral)} neutral, {formatWhole(negative)}{' '}
                  negative{not_rated ? `, ${formatWhole(not_rated)} not rated` : ''} (average{' '}
                  {formatDecimal(average)}).
                </p>
                <Sparkline
                  values={perBucket}
                  width={160}
                  label={`Posts per ${data.bucket}: ${perBucket.slice(0, 40).join(', ')}${perBucket.length > 40 ? ', …' : ''}`}
                />
                {theme.top_posts.length > 0 && (
                  <details>
                    <summary>Top posts</summary>
                    <ol className="top-posts">
                      {theme.top_posts.map((post) => (
                        <li key={post.id}>
                          <PostCard
                            post={post}
                            timeZone={data.time_zone}
                            patterns={NO_PATTERNS}
                            links={links}
                            compact
                          />
                        </li>
                      ))}
                    </ol>
                  </details>
                )}
              </li>
            );
          })}
        </ol>
      ) : (
        <p className="muted">No words of these posts occur together often enough to form a theme.</p>
      )}
      <p className="small muted">
        {formatWhole(data.words)} words of {formatWhole(data.posts)} posts, {formatWhole(data.edges)} pairs
        linked.
      </p>
      <Counted sentence={data.counted} />
    </>
  );
}
