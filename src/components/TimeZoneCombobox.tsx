// A searchable list of time zones, each with its offset from UTC now: an editable combobox with a list popup
// (WAI-ARIA combobox pattern). Typing filters the list; Down and Up move through it (Down opens it), Enter chooses,
// Escape closes it (a second Escape restores the chosen zone's name), Home and End jump to the ends of an open list;
// a click chooses too. Leaving the field keeps the chosen zone: text that names no zone is put back.
import { useId, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type Ref } from 'react';
import { searchTimeZones, timeZoneOption, timeZoneOptions, type TimeZoneOption } from '@/lib/time-zones';
import { FieldError } from './Field';

const HOUR_MS = 3_600_000;
/** The list with its offsets, made once an hour at most (about 400 formatters: tenths of a second). */
let made: { hour: number; current: string; options: TimeZoneOption[] } | null = null;
function optionsNow(current: string): TimeZoneOption[] {
  const hour = Math.floor(Date.now() / HOUR_MS);
  if (made?.hour !== hour || made.current !== current) {
    made = { hour, current, options: timeZoneOptions(current) };
  }
  return made.options;
}

export interface TimeZoneComboboxProps {
  label: string;
  /** The chosen zone. */
  value: string;
  onChange: (zone: string) => void;
  error?: string | undefined;
  ref?: Ref<HTMLInputElement>;
}

export function TimeZoneCombobox({ label, value, onChange, error, ref }: TimeZoneComboboxProps) {
  const id = useId();
  const inputId = `${id}-input`;
  const listId = `${id}-list`;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const [text, setText] = useState(value);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  // The list is made when first wanted, not with the page.
  const [wanted, setWanted] = useState(false);
  const list = useRef<HTMLUListElement>(null);

  const options = useMemo(() => (wanted ? optionsNow(value) : []), [wanted, value]);
  const shown = useMemo(
    // The chosen zone's own name lists everything: opening the list shows where the choice sits in it.
    () => (text === value ? options : searchTimeZones(options, text)),
    [options, text, value],
  );
  const chosen = useMemo(() => timeZoneOption(value), [value]);

  useLayoutEffect(() => {
    if (!open || active < 0) return;
    const option = list.current?.children[active] as HTMLElement | undefined;
    option?.scrollIntoView?.({ block: 'nearest' });
  }, [open, active]);

  const openList = (at: 'chosen' | 'first' | 'last') => {
    setWanted(true);
    setOpen(true);
    const all = text === value ? optionsNow(value) : searchTimeZones(optionsNow(value), text);
    const chosenAt = all.findIndex((option) => option.zone === value);
    setActive(at === 'last' ? all.length - 1 : at === 'chosen' && chosenAt >= 0 ? chosenAt : 0);
  };
  const choose = (option: TimeZoneOption) => {
    onChange(option.zone);
    setText(option.zone);
    setOpen(false);
    setActive(-1);
  };
  const restore = () => {
    setText(value);
    setOpen(false);
    setActive(-1);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const last = shown.length - 1;
    switch (event.key) {
      case 'ArrowDown':
        event.preventDefault();
        if (!open) openList('chosen');
        else setActive((index) => Math.min(index + 1, last));
        break;
      case 'ArrowUp':
        event.preventDefault();
        if (!open) openList('last');
        else setActive((index) => (index < 0 ? last : Math.max(index - 1, 0)));
        break;
      case 'Home':
      case 'End':
        if (!open) break;
        event.preventDefault();
        setActive(event.key === 'Home' ? 0 : last);
        break;
      case 'PageDown':
      case 'PageUp':
        if (!open) break;
        event.preventDefault();
        setActive((index) => Math.max(0, Math.min(last, index + (event.key === 'PageDown' ? 10 : -10))));
        break;
      case 'Enter': {
        // Choosing is not submitting the form; with no option active, the only one left is the choice.
        const option = open ? (shown[active] ?? (shown.length === 1 ? shown[0] : undefined)) : undefined;
        if (option) {
          event.preventDefault();
          choose(option);
        }
        break;
      }
      case 'Escape':
        if (open) {
          event.preventDefault();
          setOpen(false);
          setActive(-1);
        } else if (text !== value) {
          event.preventDefault();
          restore();
        }
        break;
    }
  };

  const activeId = open && shown[active] ? `${id}-option-${active}` : undefined;
  const describedBy = [hintId, error ? errorId : null].filter(Boolean).join(' ');

  return (
    <div className="field combobox-field">
      <label htmlFor={inputId}>{label}</label>
      <p id={hintId} className="field-hint">
        Now {chosen.offset} in {value}. Type a city, a region or an offset such as +5:30.
      </p>
      <div className="combobox">
        <input
          ref={ref}
          id={inputId}
          className="input"
          type="text"
          role="combobox"
          autoComplete="off"
          spellCheck={false}
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={listId}
          aria-activedescendant={activeId}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
          value={text}
          onChange={(event) => {
            setText(event.target.value);
            setWanted(true);
            setOpen(true);
            // No option is active until Down or Up: Enter then submits as usual, unless one zone is left.
            setActive(-1);
          }}
          onKeyDown={onKeyDown}
          onClick={() => (open ? undefined : openList('chosen'))}
          onBlur={() => {
            // Text that names a zone exactly is that choice; anything else goes back to the chosen zone.
            const named = shown.find((option) => option.zone === text);
            if (named && named.zone !== value) choose(named);
            else restore();
          }}
        />
        <ul id={listId} ref={list} role="listbox" aria-label={label} className="combobox-list" hidden={!open}>
          {open
            ? shown.map((option, index) => (
                <li
                  key={option.zone}
                  id={`${id}-option-${index}`}
                  role="option"
                  aria-selected={option.zone === value}
                  className={index === active ? 'combobox-option active' : 'combobox-option'}
                  // Keeps the focus in the input, so the choice is made before blur restores the text.
                  onMouseDown={(event) => event.preventDefault()}
                  onClick={() => choose(option)}
                >
                  <span>{option.zone}</span>
                  <span className="combobox-offset">{option.offset}</span>
                </li>
              ))
            : null}
        </ul>
        {open && !shown.length ? (
          <p className="combobox-empty small muted" role="status">
            No time zone matches “{text}”.
          </p>
        ) : null}
      </div>
      <FieldError id={errorId} message={error} />
    </div>
  );
}
