// Discover's filters: date range preset, sort, platforms and languages; each change replaces the address's search.
import { DISCOVER_SORTS } from '../../contract/discover';
import { PLATFORM_VALUES } from '../../contract/social-scope';
import { platformName } from '../../lib/platforms';
import { languageLabel } from '../../lib/languages';
import {
  LANGUAGE_VALUES,
  RANGE_DAYS,
  RANGE_LABELS,
  type DiscoverState,
  type RangePreset,
} from './discover-search';

const SORT_LABELS = { recency: 'Newest first', engagement: 'Most engagement first' } as const;

const toggle = <T extends string>(list: readonly T[], value: T, on: boolean): T[] =>
  on ? [...list, value] : list.filter((item) => item !== value);

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
      <fieldset className="filter-chips">
        <legend>Platforms</legend>
        {PLATFORM_VALUES.map((platform) => (
          <label key={platform} className="chip">
            <input
              type="checkbox"
              checked={state.platforms.includes(platform)}
              onChange={(event) =>
                onChange({ platforms: toggle(state.platforms, platform, event.target.checked) })
              }
            />
            {platformName(platform)}
          </label>
        ))}
      </fieldset>
      <fieldset className="filter-chips">
        <legend>Languages</legend>
        {LANGUAGE_VALUES.map((language) => (
          <label key={language} className="chip" title={languageLabel(language)}>
            <input
              type="checkbox"
              checked={state.languages.includes(language)}
              onChange={(event) =>
                onChange({ languages: toggle(state.languages, language, event.target.checked) })
              }
            />
            {language}
          </label>
        ))}
      </fieldset>
    </div>
  );
}
