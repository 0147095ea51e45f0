// The overview's "By category" card (issue 55 item 3): the view's posts counted per tag of one of the workspace's
// categories (POST /social/insights/categories, counted exactly by the server), the posts that carry none of its tags
// apart. The category is chosen in a labelled select (the first by default). Each tag is a bar with its name and count
// as text, and its name a button that opens its posts (the `tag` refinement added to the view's); "Untagged" opens the
// posts without any of the category's tags. The rows download as CSV (tag, posts, share, "Untagged" last). A category
// deleted meanwhile (the server's 404 category_not_found) makes the card read the categories again and show the
// first. A workspace without categories says so, with a link to Settings › Categories for those who may create them.
// Not drawn in a shared view (it knows nothing of the workspace's tags).
import { useEffect, useId } from 'react';
import { Link, useSearch } from '@tanstack/react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import * as z from 'zod/mini';
import { insightsBodySchema, type Refine } from '@contract/insights';
import type { CategoryBreakdownResponse } from '@contract/insights-categories';
import { tagLabel, type TagCategoryResponse } from '@contract/tags';
import { categoryBreakdownQuery } from '@/api/insights';
import { apiProblem } from '@/api/errors';
import { tagCategoriesQuery } from '@/api/tags';
import { useApp } from '@/components/use-app';
import { Counted } from './ChartCard';
import { exportName, saveCsv, type CsvColumn } from './csv';
import { formatPosts, formatShare, formatWhole } from './insight-format';
import { useInsightView, useSearchUpdate } from './insight-view';
import { useReadOnly } from './read-only';
import './category-breakdown.css';

export function CategoryBreakdown() {
  const readOnly = useReadOnly();
  const { api } = useApp();
  const { workspaceId, workspace } = useInsightView();
  const id = useId();
  const categories = useQuery({ ...tagCategoriesQuery(api, workspaceId), enabled: !readOnly });
  // The category chosen is the address's (`category=<id>`), so that a drill-down and back, or a copied link, keeps it.
  const search: Record<string, unknown> = useSearch({ strict: false });
  const chosen = typeof search.category === 'string' ? search.category : null;
  const updateSearch = useSearchUpdate();
  const setChosen = (categoryId: string) =>
    updateSearch((previous) => ({ ...previous, category: categoryId }), { replace: true });
  if (readOnly) return null;
  const list = categories.data?.categories ?? [];
  // A category deleted meanwhile (or none chosen yet): the first.
  const category = list.find((c) => c.id === chosen) ?? list[0];
  // Owners and managers create categories (Settings › Categories); the others read them.
  const canEdit = workspace.privilege === 'owner' || workspace.privilege === 'manager';
  const settings = canEdit ? (
    <Link to="/workspace/$workspaceId/settings/categories" params={{ workspaceId }}>
      Settings › Categories
    </Link>
  ) : null;

  return (
    <section className="chart-card" aria-labelledby={`${id}-title`} aria-busy={categories.isPending}>
      <h2 id={`${id}-title`}>By category</h2>
      {categories.isPending ? (
        <p role="status" className="muted">
          Loading the workspace&rsquo;s categories…
        </p>
      ) : categories.isError ? (
        <p role="alert" className="form-error">
          {apiProblem(categories.error).message}
        </p>
      ) : !category ? (
        <p className="chart-empty muted">
          This workspace has no categories of tags yet.{' '}
          {settings ? <>Create one in {settings}.</> : 'Owners and managers create them.'}
        </p>
      ) : (
        <>
          <div className="field category-select">
            <label htmlFor={`${id}-category`}>Category</label>
            <select
              id={`${id}-category`}
              className="input"
              value={category.id}
              onChange={(event) => setChosen(event.target.value)}
            >
              {list.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          </div>
          {category.tags.length ? (
            <Breakdown category={category} />
          ) : (
            <p className="chart-empty muted">
              {category.name} has no tags yet.{settings ? <> Add them in {settings}.</> : null}
            </p>
          )}
        </>
      )}
    </section>
  );
}

function Breakdown({ category }: { category: TagCategoryResponse }) {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const { body, workspaceId } = useInsightView();
  const result = useQuery(categoryBreakdownQuery(api, { ...body, category_id: category.id }));
  const deleted = result.isError && apiProblem(result.error).code === 'category_not_found';
  // Deleted since the list was read: read it again (the card then shows the first category left, or none).
  useEffect(() => {
    if (deleted)
      void queryClient.invalidateQueries({ queryKey: tagCategoriesQuery(api, workspaceId).queryKey });
  }, [deleted, queryClient, api, workspaceId]);
  if (deleted) {
    return (
      <p role="status" className="muted">
        {category.name} was deleted meanwhile; reading the categories again…
      </p>
    );
  }
  if (result.isPending) {
    return (
      <p role="status" className="muted">
        Counting the posts of each tag of {category.name}…
      </p>
    );
  }
  if (result.isError) {
    return (
      <p role="alert" className="form-error">
        {apiProblem(result.error).message}
      </p>
    );
  }
  return <Bars data={result.data} />;
}

/** A bar's width: its posts' share of the scope's, so the tags and "Untagged" read on one scale. */
const width = (share: number) => `${Math.min(100, Math.max(0, share * 100))}%`;

function Bars({ data }: { data: CategoryBreakdownResponse }) {
  const { drill } = useInsightView();
  const { category } = data;
  const tagIds = data.tags.map((tag) => tag.id);
  // "Untagged" opens the posts carrying none of the category's tags, when one refinement can name them all.
  const none: Refine = { field: 'tag', values: tagIds, exclude: true };
  const untagged =
    data.untagged > 0 && z.safeParse(insightsBodySchema.shape.refine, [none]).success ? none : null;
  const figure = (posts: number, share: number) => `${formatPosts(posts)} (${formatShare(share)})`;
  const untaggedShare = data.posts ? data.untagged / data.posts : 0;
  if (!data.posts) return <p className="chart-empty muted">No posts in this range.</p>;
  return (
    <>
      <ol className="category-bars" aria-label={`Posts per tag of ${category.name}`}>
        {data.tags.map((tag) => (
          <li key={tag.id} className="category-bar">
            <span className="category-bar-name">
              {tag.posts > 0 ? (
                <button
                  type="button"
                  className="link-button"
                  aria-label={`Posts tagged ${tagLabel(category.name, tag.name)}`}
                  onClick={() => drill([{ field: 'tag', values: [tag.id] }])}
                >
                  {tag.name}
                </button>
              ) : (
                tag.name
              )}
            </span>
            <span className="category-bar-track" aria-hidden="true">
              <span className="category-bar-fill" style={{ width: width(tag.share) }} />
            </span>
            <span className="category-bar-figure">{figure(tag.posts, tag.share)}</span>
          </li>
        ))}
      </ol>
      <p className="category-untagged">
        <span className="category-bar-name">
          {untagged ? (
            <button
              type="button"
              className="link-button"
              aria-label={`Untagged: posts without a tag of ${category.name}`}
              onClick={() => drill([untagged])}
            >
              Untagged
            </button>
          ) : (
            'Untagged'
          )}
        </span>
        <span className="category-bar-track" aria-hidden="true">
          <span className="category-bar-fill untagged" style={{ width: width(untaggedShare) }} />
        </span>
        <span className="category-bar-figure">{figure(data.untagged, untaggedShare)}</span>
      </p>
      <p className="small muted">
        With a tag of {category.name}: {formatWhole(data.tagged)} of {formatPosts(data.posts)}. A post with
        two of its tags counts under each.
      </p>
      <Counted sentence={data.counted} />
      <button type="button" className="button small" onClick={() => downloadCsv(data)}>
        Download CSV
      </button>
    </>
  );
}

interface CsvRow {
  tag: string;
  posts: number;
  share: number;
}

const CSV_COLUMNS: ReadonlyArray<CsvColumn<CsvRow>> = [
  { label: 'Tag', value: (row) => row.tag },
  { label: 'Posts', value: (row) => row.posts },
  { label: 'Share of posts', value: (row) => row.share },
];

/** The card's rows as a CSV file: each tag ("Category › Tag"), then "Untagged", with posts and share. */
function downloadCsv(data: CategoryBreakdownResponse) {
  const { category } = data;
  const rows: CsvRow[] = [
    ...data.tags.map((tag) => ({
      tag: tagLabel(category.name, tag.name),
      posts: tag.posts,
      share: tag.share,
    })),
    { tag: 'Untagged', posts: data.untagged, share: data.posts ? data.untagged / data.posts : 0 },
  ];
  const title = `By category ${category.name}`;
  saveCsv(
    exportName('overview', title, 'csv'),
    {
      title: `overview – ${title}`,
      timeZone: data.time_zone,
      range: data.range,
      counted: data.counted,
      query: data.query,
    },
    CSV_COLUMNS,
    rows,
  );
}
