// Joining an existing workspace with its join code, offered beside creating one (spec §1: "join one through an invite
// link or invite code").
import { useRef, useState, type FormEvent } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useMutation } from '@tanstack/react-query';
import * as z from 'zod/mini';
import { joinCodeInputSchema } from '../../contract/invites';
import { meQuery } from '../../api/queries';
import { apiProblem, joinWithCode, type ApiProblem } from '../../api/workspaces';
import { TextField } from '../../components/Field';
import { useApp } from '../../components/use-app';
import { notices } from '../../lib/notices';
import { WORKSPACE_CREATION_KEY } from '../../lib/storage-keys';
import { showToast } from '../../lib/toast';
import { useWizard } from './wizard-state';

const joinMessages = {
  codeInvalid: 'That code does not match any workspace.',
} as const;

function joinErrorMessage(problem: ApiProblem): string {
  switch (problem.code) {
    case 'join_code_invalid':
      return joinMessages.codeInvalid;
    case 'invalid_request':
      return problem.fields.code ?? problem.message;
    default:
      // rate_limited and staff_only carry sentences written for people; anything else too.
      return problem.message;
  }
}

export function JoinWithCode() {
  const { api, queryClient } = useApp();
  const { clear } = useWizard();
  const navigate = useNavigate();
  const inputRef = useRef<HTMLInputElement>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();

  const join = useMutation({
    mutationFn: (normalized: string) => joinWithCode(api, normalized),
    onSuccess: async ({ id }) => {
      localStorage.removeItem(WORKSPACE_CREATION_KEY);
      await queryClient.invalidateQueries({ queryKey: meQuery(api).queryKey });
      showToast('success', notices.joinedWorkspace);
      await navigate({ to: '/workspace/$workspaceId', params: { workspaceId: id } });
      clear();
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
    <section className="join-with-code" aria-labelledby="join-title">
      <h2 id="join-title">Joining your team instead?</h2>
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
            {join.isPending ? 'Joining…' : 'Join with a code'}
          </button>
        </div>
      </form>
    </section>
  );
}
