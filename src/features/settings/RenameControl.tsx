// Renaming a category or a tag in Settings › Categories (owners and managers): a "Rename" button that opens a one-field
// form in place, the current name filled in; Save sends it (a name taken is the server's 409 sentence, shown under
// the field), Cancel or Escape closes it and gives the focus back to the button.
import { useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiProblem } from '@/api/errors';
import { tagCategoriesQuery } from '@/api/tags';
import { FormError, TextField } from '@/components/Field';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';

export function RenameControl({
  workspaceId,
  what,
  name,
  rename,
}: {
  workspaceId: string;
  /** "category" or "tag", as the labels say it. */
  what: 'category' | 'tag';
  name: string;
  rename: (name: string) => Promise<unknown>;
}) {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState(name);
  const [error, setError] = useState<string | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  const close = () => {
    setOpen(false);
    setError(null);
    // After React has put the button back.
    setTimeout(() => button.current?.focus());
  };
  const save = useMutation({
    mutationFn: (next: string) => rename(next),
    onSuccess: async (_done, next) => {
      showToast('success', `${what === 'tag' ? 'Tag' : 'Category'} ${name} renamed ${next}`);
      close();
      await queryClient.invalidateQueries({ queryKey: tagCategoriesQuery(api, workspaceId).queryKey });
    },
    onError: (failure) => setError(apiProblem(failure).message),
  });
  if (!open)
    return (
      <button
        ref={button}
        type="button"
        className="link-button"
        aria-label={`Rename the ${what} ${name}`}
        onClick={() => {
          setValue(name);
          setOpen(true);
        }}
      >
        Rename
      </button>
    );
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (save.isPending) return;
    const next = value.trim();
    if (!next) return setError(`Name the ${what}.`);
    if (next === name) return close();
    save.mutate(next);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') close();
  };
  return (
    <form className="form tag-rename" onSubmit={onSubmit} onKeyDown={onKeyDown} noValidate>
      <TextField
        label={`New name of the ${what} ${name}`}
        value={value}
        onChange={setValue}
        autoComplete="off"
        maxLength={60}
        autoFocus
      />
      <FormError message={error} />
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={save.isPending}>
          Save
        </button>
        <button type="button" className="button" onClick={close}>
          Cancel
        </button>
      </div>
    </form>
  );
}
