// The query text of the saved-query form: a plain textarea for now (a CodeMirror editor with the same props will
// replace it), and under it each parser error at its position: its message, and the text with the offending span
// marked. Choosing an error selects its span in the textarea.
import { useRef } from 'react';
import type { QueryError } from '../../contract/social-query';

export interface QueryInputProps {
  value: string;
  onChange: (value: string) => void;
  /** The parser's errors (1-based columns in UTF-16 code units, as a textarea counts), for the current text. */
  errors: readonly QueryError[];
  id: string;
  'aria-describedby'?: string | undefined;
}

const QUERY_PLACEHOLDER = 'e.g. (coffee OR "cold brew") AND lang:en NOT decaf';

export function QueryInput({
  value,
  onChange,
  errors,
  id,
  'aria-describedby': describedBy,
}: QueryInputProps) {
  const textarea = useRef<HTMLTextAreaElement>(null);
  const errorsId = `${id}-errors`;
  const select = (error: QueryError) => {
    const start = Math.min(error.column - 1, value.length);
    textarea.current?.focus();
    textarea.current?.setSelectionRange(start, Math.min(start + error.length, value.length));
  };
  return (
    <>
      <textarea
        ref={textarea}
        id={id}
        className="input query-input"
        value={value}
        rows={3}
        spellCheck={false}
        placeholder={QUERY_PLACEHOLDER}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={errors.length ? true : undefined}
        aria-describedby={
          [describedBy, errors.length ? errorsId : null].filter(Boolean).join(' ') || undefined
        }
      />
      {errors.length ? (
        <ul id={errorsId} className="query-errors">
          {errors.map((error, i) => {
            const start = Math.min(error.column - 1, value.length);
            const end = Math.min(start + error.length, value.length);
            return (
              <li key={`${error.column}-${i}`}>
                <button type="button" className="link-button field-error" onClick={() => select(error)}>
                  {error.message}
                </button>
                <pre className="query-mark" aria-hidden="true">
                  {value.slice(0, start)}
                  <mark className={end > start ? undefined : 'empty'}>{value.slice(start, end) || ' '}</mark>
                  {value.slice(end)}
                </pre>
              </li>
            );
          })}
        </ul>
      ) : null}
    </>
  );
}
