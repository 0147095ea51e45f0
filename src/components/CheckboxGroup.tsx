// A labelled group of checkboxes over a fixed list of values (platforms, languages, members): what is checked is kept
// in the order of `options`; for platforms and languages "none checked" means "all" — the hint says so. PlatformLanguageChoices is the pair the
// saved-query form, discover's filters and the dashboards' scope bar share.
import { PLATFORM_VALUES } from '@contract/social-scope';
import { workspaceLanguages, type WorkspaceLanguage } from '@contract/workspaces';
import { languageLabel } from '@/lib/languages';
import { platformName } from '@/lib/platforms';

type Platform = (typeof PLATFORM_VALUES)[number];
interface CheckboxOption<T extends string> {
  value: T;
  label: string;
  /** A longer name, shown on hover (a language's name beside its code). */
  title?: string;
}

export function CheckboxGroup<T extends string>({
  legend,
  options,
  selected,
  onChange,
  hint,
  className = 'choice-group compact',
  itemClassName = 'choice',
}: {
  legend: string;
  options: ReadonlyArray<CheckboxOption<T>>;
  selected: readonly T[];
  onChange: (next: T[]) => void;
  hint?: string;
  className?: string;
  itemClassName?: string;
}) {
  const toggle = (value: T, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(value);
    else next.delete(value);
    onChange(options.map((option) => option.value).filter((option) => next.has(option)));
  };
  return (
    <fieldset className={className}>
      <legend>{legend}</legend>
      {hint ? <p className="field-hint choice-hint">{hint}</p> : null}
      {options.map((option) => (
        <label key={option.value} className={itemClassName} title={option.title}>
          <input
            type="checkbox"
            checked={selected.includes(option.value)}
            onChange={(event) => toggle(option.value, event.target.checked)}
          />
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}

const PLATFORM_OPTIONS = PLATFORM_VALUES.map((platform) => ({
  value: platform,
  label: platformName(platform),
}));

/**
 * The two filters every search scope has, platforms and languages, each none-checked-means-all. `chips` is the compact
 * row of discover (language codes, their names on hover); otherwise a list with names and the "none checked" hint.
 */
export function PlatformLanguageChoices({
  platforms,
  languages,
  onPlatforms,
  onLanguages,
  chips = false,
}: {
  platforms: readonly string[];
  languages: readonly string[];
  onPlatforms: (next: Platform[]) => void;
  onLanguages: (next: WorkspaceLanguage[]) => void;
  chips?: boolean;
}) {
  const look = chips ? { className: 'filter-chips', itemClassName: 'chip' } : {};
  return (
    <>
      <CheckboxGroup
        legend="Platforms"
        hint={chips ? undefined : 'None checked: every platform.'}
        options={PLATFORM_OPTIONS}
        selected={platforms as readonly Platform[]}
        onChange={onPlatforms}
        {...look}
      />
      <CheckboxGroup
        legend="Languages"
        hint={chips ? undefined : 'None checked: every language.'}
        options={workspaceLanguages.map((language) =>
          chips
            ? { value: language, label: language, title: languageLabel(language) }
            : { value: language, label: languageLabel(language) },
        )}
        selected={languages as readonly WorkspaceLanguage[]}
        onChange={onLanguages}
        {...look}
      />
    </>
  );
}
