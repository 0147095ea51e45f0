// A value to hand on (an invite link, a join code): read-only text that selects itself, and a Copy button. Where the
// clipboard is unavailable (older browsers, non-secure origins, a denied permission) the text is selected instead.
import { useId, useRef, useState } from 'react';
import { showToast } from '@/lib/toast';

export function CopyField({ label, value, hint }: { label: string; value: string; hint?: string }) {
  const id = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [manual, setManual] = useState(false);

  const selectAll = () => {
    inputRef.current?.focus();
    inputRef.current?.select();
  };

  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error('Clipboard unavailable');
      await navigator.clipboard.writeText(value);
      setManual(false);
      showToast('success', `${label} copied`);
    } catch {
      setManual(true);
      selectAll();
    }
  };

  const hintText = manual
    ? 'Copying is blocked here: the text is selected, press Ctrl+C (⌘C on a Mac).'
    : hint;
  return (
    <div className="field copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="copy-row">
        <input
          ref={inputRef}
          id={id}
          className="input"
          readOnly
          value={value}
          onFocus={(event) => event.currentTarget.select()}
          aria-describedby={hintText ? `${id}-hint` : undefined}
        />
        <button type="button" className="button" onClick={() => void copy()} aria-label={`Copy ${label}`}>
          Copy
        </button>
      </div>
      {hintText ? (
        <p id={`${id}-hint`} className="field-hint" aria-live="polite">
          {hintText}
        </p>
      ) : null}
    </div>
  );
}
