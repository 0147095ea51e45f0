// Discover's filters: date range preset, sort, platforms and languages; each change replaces the address's search.
import { DISCOVER_SORTS } from '@contract/discover';
import { PlatformLanguageChoices } from '@/components/CheckboxGroup';
import { RANGE_DAYS, RANGE_LABELS, type DiscoverState, type RangePreset } from './discover-search';

const SORT_LABELS = { recency: 'Newest first', engagement: 'Most engagement first' } as const;

export function DiscoverFilters({
  state,
  onChange,
}: {
  state: DiscoverState;
  onChange: (next: Partial<DiscoverState>) => void;
}) {
  return (
    <div className="discover-filters">
      <div className="field">
        <label htmlFor="discover-range">Date range</label>
        <select
          id="discover-range"
          className="input compact"
          value={state.range}
          onChange={(event) => onChange({ range: event.target.value as RangePreset })}
        >
          {(Object.keys(RANGE_DAYS) as RangePreset[]).map((range) => (
            <option key={range} value={range}>
              {RANGE_LABELS[range]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="discover-sort">Sort</label>
        <select
          id="discover-sort"
          className="input compact"
          value={state.sort}
          onChange={(event) => onChange({ sort: event.target.value as DiscoverState['sort'] })}
        >
          {DISCOVER_SORTS.map((sort) => (
            <option key={sort} value={sort}>
              {SORT_LABELS[sort]}
            </option>
          ))}
        </select>
      </div>
      <PlatformLanguageChoices
        chips
        platforms={state.platforms}
        languages={state.languages}
        onPlatforms={(platforms) => onChange({ platforms })}
        onLanguages={(languages) => onChange({ languages })}
      />
    </div>
  );
}
