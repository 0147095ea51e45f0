// A labelled group of checkboxes over a fixed list of values (platforms, languages): what is checked is kept in the
// order of `options`, and "none checked" means "all" — the hint says so. Used by the saved-query form, discover's
// filters and the dashboards' scope bar.
export interface CheckboxOption<T extends string> {
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
