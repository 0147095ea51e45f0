// What the paged lists share: the page and sort in the address (a keyset cursor, with the range's end pinned so a
// copied link opens the same page and back returns to the one before), the sort menu, the pager, and the download of
// the whole list (up to 100,000 rows) as a CSV the server streams.
import { useState } from 'react';
import { useSearch } from '@tanstack/react-router';
import { apiProblem } from '@/api/errors';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import { saveFile } from '@/lib/save-file';
import { formatWhole } from './insight-format';
import { useInsightView, useSearchUpdate } from './insight-view';
import { LIST_PAGE_SIZE } from './dashboard-query';

interface ListSearch {
  sort?: string;
  cursor?: string;
  page?: string;
}

export function usePaging<S extends string>(defaultSort: S) {
  const search = useSearch({ strict: false }) as ListSearch;
  const update = useSearchUpdate();
  const sort = (search.sort as S | undefined) ?? defaultSort;
  const page = search.cursor ? Number(search.page ?? 2) : 1;
  return {
    sort,
    cursor: search.cursor,
    page,
    setSort: (next: S) =>
      update((previous) => ({
        ...previous,
        sort: next === defaultSort ? undefined : next,
        cursor: undefined,
        page: undefined,
      })),
    /** The next page: its cursor, and the range's end pinned to the first page's. */
    next: (cursor: string, rangeEnd: string) =>
      update((previous) => ({
        ...previous,
        cursor,
        page: String(page + 1),
        ...(previous.range === 'custom' ? {} : { end: rangeEnd }),
      })),
    first: () => update((previous) => ({ ...previous, cursor: undefined, page: undefined })),
  };
}

export function SortSelect<S extends string>({
  sorts,
  labels,
  value,
  onChange,
}: {
  sorts: readonly S[];
  labels: Record<S, string>;
  value: S;
  onChange: (sort: S) => void;
}) {
  return (
    <div className="field inline">
      <label htmlFor="list-sort">Sort</label>
      <select
        id="list-sort"
        className="input compact"
        value={value}
        onChange={(event) => onChange(event.target.value as S)}
      >
        {sorts.map((sort) => (
          <option key={sort} value={sort}>
            {labels[sort]}
          </option>
        ))}
      </select>
    </div>
  );
}

export function Pager({
  page,
  shown,
  total,
  nextCursor,
  rangeEnd,
  paging,
  noun,
}: {
  page: number;
  shown: number;
  total: number;
  nextCursor: string | null;
  rangeEnd: string;
  paging: { next: (cursor: string, end: string) => void; first: () => void };
  noun: string;
}) {
  const start = (page - 1) * LIST_PAGE_SIZE + 1;
  return (
    <nav className="pager" aria-label={`${noun} pages`}>
      <span className="small muted">
        {shown
          ? `${formatWhole(start)}–${formatWhole(start + shown - 1)} of ${formatWhole(total)} ${noun}`
          : ''}
      </span>
      {page > 1 ? (
        <button type="button" className="button small" onClick={paging.first}>
          First page
        </button>
      ) : null}
      {nextCursor ? (
        <button type="button" className="button small" onClick={() => paging.next(nextCursor, rangeEnd)}>
          Next page
        </button>
      ) : null}
    </nav>
  );
}

/** Downloads the whole list as the server streams it (scope, filters, refinements and sort as shown). */
export function ExportButton({ list, sort }: { list: 'posts' | 'profiles'; sort: string }) {
  const { api } = useApp();
  const { body } = useInsightView();
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    try {
      const file = await api.downloadSocial(
        `insights/export/${list}`,
        { ...body, sort },
        `murmur-${list}.csv`,
      );
      saveFile(file.name, file.blob);
    } catch (error) {
      showToast('error', `The export failed: ${apiProblem(error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="button" onClick={() => void download()} disabled={busy} aria-busy={busy}>
      {busy ? 'Preparing the CSV…' : `Download all ${list} (CSV)`}
    </button>
  );
}
