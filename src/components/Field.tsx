// Form building blocks: a labelled field whose error is announced and tied to its input, and a form-level error.
import { useId, type InputHTMLAttributes, type Ref } from 'react';

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> {
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** Shown under the input and announced; marks the input invalid. */
  error?: string | undefined;
  hint?: string;
  ref?: Ref<HTMLInputElement>;
}

export function TextField({ label, value, onChange, error, hint, ref, id, ...input }: TextFieldProps) {
  const generated = useId();
  const inputId = id ?? generated;
  const hintId = `${inputId}-hint`;
  const errorId = `${inputId}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={inputId}>{label}</label>
      {hint ? (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
      <input
        {...input}
        ref={ref}
        id={inputId}
        className="input"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
      />
      <FieldError id={errorId} message={error} />
    </div>
  );
}

/** A field's error line; the id lets its control point at it with aria-describedby. */
export function FieldError({ id, message }: { id: string; message?: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className="field-error">
      {message}
    </p>
  );
}

/** An error about the whole form (a refused request, a lost connection); announced when it appears. */
export function FormError({ message }: { message?: string | null | undefined }) {
  if (!message) return null;
  return (
    <p className="form-error" role="alert">
      {message}
    </p>
  );
}

/** The first validation message per top-level field of a zod safeParse failure. */
export function fieldMessages(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>) {
  const messages: Record<string, string> = {};
  for (const issue of issues) {
    const key = String(issue.path[0] ?? '');
    messages[key] ??= issue.message;
  }
  return messages;
}
