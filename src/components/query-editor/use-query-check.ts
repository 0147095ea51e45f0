// The live check of a query while it is typed: validate runs once the text has rested for CHECK_DELAY_MS; a newer text
// changes the query key, and TanStack Query cancels the stale request (its AbortSignal reaches fetch).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { queryCheckQuery, type SearchScope } from '../../api/social';
import type { QueryError, ValidateQueryResponse } from '../../contract/social-query';
import { useApp } from '../use-app';
import { useDebouncedValue } from '../use-debounced-value';

const CHECK_DELAY_MS = 250;

export interface QueryCheck {
  /** The text the last answer is about (may lag behind what is typed). */
  checkedQuery: string;
  /** The answer for checkedQuery (or the previous text's while the new one is counted). */
  result: ValidateQueryResponse | undefined;
  /** The errors of exactly `query` ([] when it is valid or empty); undefined until its check is back. */
  errors: readonly QueryError[] | undefined;
  /** The answer shown is not yet about the text as typed. */
  pending: boolean;
  failure: unknown;
}

const NONE: readonly QueryError[] = [];

export function useQueryCheck(workspaceId: string, query: string, scope: SearchScope | null): QueryCheck {
  const { api } = useApp();
  const checkedQuery = useDebouncedValue(query, CHECK_DELAY_MS);
  const blank = checkedQuery.trim() === '';
  const check = useQuery({
    ...queryCheckQuery(api, workspaceId, checkedQuery, scope),
    enabled: !blank,
    placeholderData: keepPreviousData,
  });
  const current = !blank && checkedQuery === query && check.isSuccess && !check.isPlaceholderData;
  const errors =
    query.trim() === '' ? NONE : current ? (check.data.valid ? NONE : check.data.errors) : undefined;
  return {
    checkedQuery,
    result: blank ? undefined : check.data,
    errors,
    pending: !blank && (checkedQuery !== query || check.isFetching),
    failure: check.error,
  };
}
