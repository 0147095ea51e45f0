// The live check of a query while it is typed: validate runs once the text has rested for CHECK_DELAY_MS (or at once
// after checkNow, e.g. on Ctrl+Enter); a newer text changes the query key, and TanStack Query cancels the stale request
// (its AbortSignal reaches fetch).
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { isPreparing } from '@/api/errors';
import { queryCheckQuery, type SearchScope } from '@/api/social';
import type { QueryError, QueryWarning, ValidateQueryResponse } from '@contract/social-query';
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
  /** The warnings of exactly `query` (what may not be meant; never a refusal); undefined until its check is back. */
  warnings: readonly QueryWarning[] | undefined;
  /** The answer shown is not yet about the text as typed. */
  pending: boolean;
  failure: unknown;
  /** The figures are being prepared: the check asks again after each Retry-After meanwhile (src/api/errors.ts). */
  preparing: boolean;
  /** Checks the text as typed now, without waiting for the debounce. */
  checkNow: () => void;
}

const NONE: readonly QueryError[] = [];
const NO_WARNINGS: readonly QueryWarning[] = [];

export function useQueryCheck(workspaceId: string, query: string, scope: SearchScope | null): QueryCheck {
  const { api } = useApp();
  const debounced = useDebouncedValue(query, CHECK_DELAY_MS);
  // The text checkNow was asked for: it wins over the debounced one while it is still the text typed.
  const [now, setNow] = useState<string | null>(null);
  const checkedQuery = now === query ? query : debounced;
  const blank = checkedQuery.trim() === '';
  const check = useQuery({
    ...queryCheckQuery(api, workspaceId, checkedQuery, scope),
    enabled: !blank,
    placeholderData: keepPreviousData,
  });
  const current = !blank && checkedQuery === query && check.isSuccess && !check.isPlaceholderData;
  const errors =
    query.trim() === '' ? NONE : current ? (check.data.valid ? NONE : check.data.errors) : undefined;
  const warnings =
    query.trim() === ''
      ? NO_WARNINGS
      : current
        ? check.data.valid
          ? (check.data.warnings ?? NO_WARNINGS)
          : NO_WARNINGS
        : undefined;
  return {
    checkedQuery,
    result: blank ? undefined : check.data,
    errors,
    warnings,
    pending: !blank && (checkedQuery !== query || check.isFetching),
    failure: check.error,
    preparing: !blank && isPreparing(check.failureReason),
    checkNow: () => setNow(query),
  };
}
