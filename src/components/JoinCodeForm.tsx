// Joining an existing workspace with its join code (spec §1: "join one through an invite link or invite code"): offered
// beside creating one in the wizard, and in the header's workspace switcher.
import { useRef, useState, type FormEvent } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useMutation } from '@tanstack/react-query';
import * as z from 'zod/mini';
import { joinCodeInputSchema } from '@contract/invites';
import { meQuery } from '@/api/queries';
import { joinWithCode } from '@/api/workspaces';
import { apiProblem, type ApiProblem } from '@/api/errors';
import { notices } from '@/lib/notices';
import { WORKSPACE_CREATION_KEY } from '@/lib/storage-keys';
import { showToast } from '@/lib/toast';
import { TextField } from './Field';
import { useApp } from './use-app';

const CODE_INVALID = 'That code does not match any workspace.';

function joinErrorMessage(problem: ApiProblem): string {
  switch (problem.code) {
    case 'join_code_invalid':
      return CODE_INVALID;
    case 'invalid_request':
      return problem.fields.code ?? problem.message;
    default:
      // rate_limited and staff_only carry sentences written for people; anything else too.
      return problem.message;
  }
}

export interface JoinCodeFormProps {
  /** The submit button's text. */
  submitLabel: string;
  /** After joining, once the browser is in the workspace (the wizard forgets its draft, the switcher closes). */
  onJoined?: () => void;
}

/** The join-code field and its button: joins, says so, and opens the workspace. */
export function JoinCodeForm({ submitLabel, onJoined }: JoinCodeFormProps) {
  const { api, queryClient } = useApp();
  const navigate = useNavigate();
  const inputRef = useRef<HTMLInputElement>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();

  const join = useMutation({
    mutationFn: (normalized: string) => joinWithCode(api, normalized),
    onSuccess: async ({ id, already_member }) => {
      localStorage.removeItem(WORKSPACE_CREATION_KEY);
      await queryClient.invalidateQueries({ queryKey: meQuery(api).queryKey });
      showToast('success', already_member ? notices.alreadyMember : notices.joinedWorkspace);
      await navigate({ to: '/workspace/$workspaceId', params: { workspaceId: id } });
      onJoined?.();
    },
    onError: (failure) => {
      setError(joinErrorMessage(apiProblem(failure)));
      inputRef.current?.focus();
    },
  });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (join.isPending) return;
    const parsed = z.safeParse(joinCodeInputSchema, code);
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      inputRef.current?.focus();
      return;
    }
    setError(undefined);
    join.mutate(parsed.data);
  };

  return (
    <form className="form inline-form" onSubmit={onSubmit} noValidate>
      <TextField
        ref={inputRef}
        label="Join code"
        hint="Eight characters, like ABCD-EFGH. An owner or manager of the workspace can give it to you."
        value={code}
        onChange={(value) => {
          setCode(value);
          setError(undefined);
        }}
        error={error}
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
      />
      <div className="form-actions">
        <button type="submit" className="button" disabled={join.isPending}>
          {join.isPending ? 'Joining…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
