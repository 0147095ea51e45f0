// Compare's choices (ComparePage.tsx): what to compare ("Compare saved queries | Compare tags"), then the saved
// queries compared, or the saved query the tags are compared in and the tags. Every control is labelled and a native
// input (radio, checkbox, select), so each is reached and changed from the keyboard.
import { useId, type ReactNode } from 'react';
import { SavedQueryOptions } from './SavedQueryOptions';
import { COMPARE_MAX, COMPARE_MIN, COMPARE_MODES, type CompareMode } from '@contract/insights-compare';

/** A saved query or a tag as a picker lists it ("Category › Tag" for a tag). */
export interface Choice {
  id: string;
  name: string;
}

const MODE_LABELS: Record<CompareMode, string> = {
  saved_queries: 'Compare saved queries',
  tags: 'Compare tags',
};

export function CompareModeChoice({
  mode,
  choose,
}: {
  mode: CompareMode;
  choose: (mode: CompareMode) => void;
}) {
  const name = useId();
  return (
    <fieldset className="choice-group compact compare-mode">
      <legend>What to compare</legend>
      {COMPARE_MODES.map((value) => (
        <label key={value} className="choice">
          <input
            type="radio"
            name={name}
            value={value}
            checked={mode === value}
            onChange={() => choose(value)}
          />
          {MODE_LABELS[value]}
        </label>
      ))}
    </fieldset>
  );
}

/** Checkboxes for 2 to 5 of `choices`, in the order checked; the others disabled at the most. */
function Checks({
  legend,
  hint,
  lead,
  choices,
  ids,
  choose,
}: {
  legend: string;
  hint: string;
  /** What comes before the choices, in the same group (tags mode: the saved query they are compared in). */
  lead?: ReactNode;
  choices: readonly Choice[];
  ids: readonly string[];
  choose: (ids: string[]) => void;
}) {
  return (
    <fieldset className="choice-group compact compare-picker">
      <legend>{legend}</legend>
      <p className="field-hint choice-hint">{hint}</p>
      {lead}
      {choices.map((choice) => {
        const checked = ids.includes(choice.id);
        return (
          <label key={choice.id} className="choice">
            <input
              type="checkbox"
              checked={checked}
              disabled={!checked && ids.length >= COMPARE_MAX}
              onChange={(event) =>
                choose(event.target.checked ? [...ids, choice.id] : ids.filter((id) => id !== choice.id))
              }
            />
            {choice.name}
          </label>
        );
      })}
    </fieldset>
  );
}

export function QueriesPicker({
  queries,
  ids,
  choose,
}: {
  queries: readonly Choice[];
  ids: readonly string[];
  choose: (ids: string[]) => void;
}) {
  return (
    <Checks
      legend="Saved queries compared"
      hint={`Choose ${COMPARE_MIN} to ${COMPARE_MAX}. The range and filters above apply to each.`}
      choices={queries}
      ids={ids}
      choose={choose}
    />
  );
}

export function TagsPicker({
  queries,
  within,
  chooseWithin,
  tags,
  loading,
  ids,
  choose,
}: {
  queries: readonly Choice[];
  /** The saved query the tags are compared in; null for every post. */
  within: string | null;
  chooseWithin: (id: string | null) => void;
  tags: readonly Choice[];
  loading: boolean;
  ids: readonly string[];
  choose: (ids: string[]) => void;
}) {
  const id = useId();
  return (
    <Checks
      legend="Tags compared"
      hint={
        `Choose ${COMPARE_MIN} to ${COMPARE_MAX}. Each tag's column counts the posts carrying it (of the saved ` +
        'query chosen, or every post); ' +
        'the range and filters above apply to each.'
      }
      lead={
        <>
          <div className="field compare-within">
            <label htmlFor={`${id}-within`}>Within</label>
            <select
              id={`${id}-within`}
              className="input compact"
              value={within ?? ''}
              onChange={(event) => chooseWithin(event.target.value || null)}
            >
              <option value="">Every post</option>
              <SavedQueryOptions queries={queries} />
            </select>
          </div>
          {loading && (
            <p className="muted" role="status">
              Loading the tags…
            </p>
          )}
        </>
      }
      choices={loading ? [] : tags}
      ids={ids}
      choose={choose}
    />
  );
}
