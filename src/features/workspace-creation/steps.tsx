// The wizard's three steps. Each validates its own fields with the contract's schemas (the server validates with the
// same ones) before moving on; the last one creates the workspace.
import { useRef, type FormEvent } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useMutation, useSuspenseQuery } from '@tanstack/react-query';
import * as z from 'zod/mini';
import {
  createWorkspaceBodySchema,
  trialLimitSentence,
  workspaceLanguageSchema,
  workspaceNameSchema,
  type CreateWorkspaceBody,
} from '@contract/workspaces';
import { meQuery, workspaceQuery } from '@/api/queries';
import { createWorkspace } from '@/api/workspaces';
import { apiProblem } from '@/api/errors';
import { PageFrame } from '@/components/PageFrame';
import { FieldError, FormError, TextField, fieldMessages } from '@/components/Field';
import { JoinCodeForm } from '@/components/JoinCodeForm';
import { useApp } from '@/components/use-app';
import { languageOptions } from '@/lib/languages';
import { WORKSPACE_CREATION_KEY } from '@/lib/storage-keys';
import { showToast } from '@/lib/toast';
import { STEP_OF_FIELD, STEPS, useWizard, type WizardErrors, type WizardField } from './wizard-state';

const FIELD_ORDER: WizardField[] = ['name', 'language', 'first_name', 'last_name'];

/** The first field with an error, in the order the wizard asks for them. */
const firstInvalid = (errors: WizardErrors) => FIELD_ORDER.find((field) => errors[field]);

export function NameStep() {
  const { draft, errors, formError, update, setErrors } = useWizard();
  const navigate = useNavigate();
  const inputRef = useRef<HTMLInputElement>(null);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = z.safeParse(workspaceNameSchema, draft.name);
    if (!parsed.success) {
      setErrors({ ...errors, name: parsed.error.issues[0]?.message }, formError);
      inputRef.current?.focus();
      return;
    }
    void navigate({ to: STEPS[1].to });
  };

  return (
    <PageFrame title="Name your workspace" description="Teams usually name it after the brand or client.">
      <form className="form" onSubmit={onSubmit} noValidate>
        <TextField
          ref={inputRef}
          label="Workspace name"
          value={draft.name}
          onChange={(value) => update('name', value)}
          error={errors.name}
          autoComplete="organization"
          autoFocus
        />
        <p className="field-hint">{trialLimitSentence()}</p>
        <div className="form-actions">
          <button type="submit" className="button primary">
            Next
          </button>
        </div>
      </form>
      <JoinWithCode />
    </PageFrame>
  );
}

/** Joining an existing workspace instead of creating one. */
function JoinWithCode() {
  const { clear } = useWizard();
  return (
    <section className="join-with-code" aria-labelledby="join-title">
      <h2 id="join-title">Joining your team instead?</h2>
      <JoinCodeForm submitLabel="Join with a code" onJoined={clear} />
    </section>
  );
}

export function LanguageStep() {
  const { draft, errors, formError, update, setErrors } = useWizard();
  const navigate = useNavigate();
  const groupRef = useRef<HTMLFieldSetElement>(null);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = z.safeParse(workspaceLanguageSchema, draft.language || undefined);
    if (!parsed.success) {
      setErrors({ ...errors, language: parsed.error.issues[0]?.message }, formError);
      groupRef.current?.querySelector('input')?.focus();
      return;
    }
    void navigate({ to: STEPS[2].to });
  };

  return (
    <PageFrame title="Content language" description="The main language of the content you will analyse.">
      <form className="form" onSubmit={onSubmit} noValidate>
        <fieldset
          ref={groupRef}
          className="choice-group"
          aria-invalid={errors.language ? true : undefined}
          aria-describedby={errors.language ? 'language-error' : undefined}
        >
          <legend>Language</legend>
          {languageOptions().map((option) => (
            <label key={option.code} className="choice">
              <input
                type="radio"
                name="language"
                value={option.code}
                checked={draft.language === option.code}
                onChange={() => update('language', option.code)}
              />
              {option.label}
            </label>
          ))}
        </fieldset>
        <FieldError id="language-error" message={errors.language} />
        <div className="form-actions">
          <button type="button" className="button" onClick={() => void navigate({ to: STEPS[0].to })}>
            Back
          </button>
          <button type="submit" className="button primary">
            Next
          </button>
        </div>
      </form>
    </PageFrame>
  );
}

export function UserInfoStep() {
  const { api, queryClient } = useApp();
  const { draft, errors, formError, update, setErrors, clear } = useWizard();
  const navigate = useNavigate();
  const firstNameRef = useRef<HTMLInputElement>(null);
  const lastNameRef = useRef<HTMLInputElement>(null);
  const me = useSuspenseQuery(meQuery(api)).data;
  // Until the user edits a name, the one on their profile is shown (and sent).
  const firstName = draft.first_name ?? me.first_name ?? '';
  const lastName = draft.last_name ?? me.last_name ?? '';

  /** Shows the errors where their fields are: on this step, or on the earlier step that asks for them. */
  const showErrors = (next: WizardErrors, nextFormError: string | null = null) => {
    setErrors(next, nextFormError);
    const field = firstInvalid(next);
    if (!field) return;
    if (STEP_OF_FIELD[field] !== STEPS[2].to) void navigate({ to: STEP_OF_FIELD[field] });
    else (field === 'first_name' ? firstNameRef : lastNameRef).current?.focus();
  };

  const create = useMutation({
    mutationFn: (body: CreateWorkspaceBody) => createWorkspace(api, body),
    onSuccess: async (workspace) => {
      localStorage.removeItem(WORKSPACE_CREATION_KEY);
      queryClient.setQueryData(workspaceQuery(api, workspace.id).queryKey, workspace);
      await queryClient.invalidateQueries({ queryKey: meQuery(api).queryKey });
      showToast('success', `Workspace “${workspace.name}” created`);
      await navigate({ to: '/workspace/$workspaceId', params: { workspaceId: workspace.id } });
      clear();
    },
    onError: (error) => {
      const problem = apiProblem(error);
      const fieldErrors: WizardErrors = {};
      for (const field of FIELD_ORDER) {
        if (problem.fields[field]) fieldErrors[field] = problem.fields[field];
      }
      const matched = Object.keys(fieldErrors).length > 0;
      showErrors(fieldErrors, matched ? null : problem.message);
    },
  });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (create.isPending) return;
    const parsed = z.safeParse(createWorkspaceBodySchema, {
      name: draft.name,
      language: draft.language || undefined,
      first_name: firstName,
      // The last name is optional: left empty, it is not sent.
      last_name: lastName.trim() === '' ? undefined : lastName,
    });
    if (!parsed.success) {
      showErrors(fieldMessages(parsed.error.issues));
      return;
    }
    setErrors({});
    create.mutate(parsed.data);
  };

  return (
    <PageFrame title="About you" description="How your teammates will see you.">
      <form className="form" onSubmit={onSubmit} noValidate aria-busy={create.isPending || undefined}>
        <TextField
          ref={firstNameRef}
          label="First name"
          value={firstName}
          onChange={(value) => update('first_name', value)}
          error={errors.first_name}
          autoComplete="given-name"
          autoFocus
        />
        <TextField
          ref={lastNameRef}
          label="Last name (optional)"
          value={lastName}
          onChange={(value) => update('last_name', value)}
          error={errors.last_name}
          autoComplete="family-name"
        />
        <FormError message={formError} />
        <div className="form-actions">
          <button
            type="button"
            className="button"
            disabled={create.isPending}
            onClick={() => void navigate({ to: STEPS[1].to })}
          >
            Back
          </button>
          <button type="submit" className="button primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create workspace'}
          </button>
        </div>
      </form>
    </PageFrame>
  );
}
