// The workspace's name, content language and time zone: owners and managers edit them, viewers read them. The time
// zone is the one every dashboard, export and range counts days and hours in. Below them, how sentiment agrees with
// the team's corrections (SentimentAgreement.tsx).
import { useRef, useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import * as z from 'zod/mini';
import {
  updateWorkspaceBodySchema,
  workspaceLanguageSchema,
  type UpdateWorkspaceBody,
  type WorkspaceLanguage,
} from '@contract/workspaces';
import type { WorkspaceResponse } from '@contract/workspaces';
import { meQuery, workspaceQuery } from '@/api/queries';
import { updateWorkspace } from '@/api/workspaces';
import { apiProblem } from '@/api/errors';
import { FieldError, FormError, TextField, fieldMessages } from '@/components/Field';
import { TimeZoneCombobox } from '@/components/TimeZoneCombobox';
import { PageFrame } from '@/components/PageFrame';
import { useApp } from '@/components/use-app';
import { languageLabel, languageOptions } from '@/lib/languages';
import { timeZoneOption } from '@/lib/time-zones';
import { showToast } from '@/lib/toast';
import { canManageMembers } from './member-rules';
import { SentimentAgreement } from './SentimentAgreement';
import { useWorkspace } from './use-workspace';

const languageOf = (workspace: WorkspaceResponse): WorkspaceLanguage | '' => {
  const parsed = z.safeParse(workspaceLanguageSchema, workspace.language);
  return parsed.success ? parsed.data : '';
};

export function GeneralSettingsPage() {
  const { workspace } = useWorkspace();
  return (
    <PageFrame
      title="General"
      description="The workspace's name, content language and time zone, and how sentiment agrees with your team."
    >
      {canManageMembers(workspace.privilege) ? (
        <GeneralForm key={workspace.id} workspace={workspace} />
      ) : (
        <ReadOnlyGeneral workspace={workspace} />
      )}
      <SentimentAgreement workspaceId={workspace.id} />
    </PageFrame>
  );
}

function ReadOnlyGeneral({ workspace }: { workspace: WorkspaceResponse }) {
  const language = languageOf(workspace);
  return (
    <>
      <dl className="details">
        <dt>Name</dt>
        <dd>{workspace.name ?? workspace.id}</dd>
        <dt>Content language</dt>
        <dd>{language ? languageLabel(language) : 'Not set'}</dd>
        <dt>Time zone</dt>
        <dd>
          {workspace.time_zone} (now {timeZoneOption(workspace.time_zone).offset}): the dashboards count days
          and hours in it
        </dd>
      </dl>
      <p className="muted small">Only owners and managers can change these settings.</p>
    </>
  );
}

type Errors = Partial<Record<'name' | 'language' | 'time_zone', string>>;

/** What the dashboards, discover and the plan's pages show depends on the zone: asked again after it changes. */
const ZONE_DEPENDENT = new Set(['insights', 'discover', 'saved-queries', 'plan', 'billing']);

function GeneralForm({ workspace }: { workspace: WorkspaceResponse }) {
  const { api, queryClient } = useApp();
  const [name, setName] = useState(workspace.name ?? '');
  const [language, setLanguage] = useState(languageOf(workspace));
  const [timeZone, setTimeZone] = useState(workspace.time_zone);
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const nameRef = useRef<HTMLInputElement>(null);
  const languageRef = useRef<HTMLSelectElement>(null);
  const timeZoneRef = useRef<HTMLInputElement>(null);

  const focusFirst = (next: Errors) => {
    if (next.name) nameRef.current?.focus();
    else if (next.language) languageRef.current?.focus();
    else if (next.time_zone) timeZoneRef.current?.focus();
  };

  const save = useMutation({
    mutationFn: (body: UpdateWorkspaceBody) => updateWorkspace(api, workspace.id, body),
    onSuccess: async (updated) => {
      queryClient.setQueryData(workspaceQuery(api, workspace.id).queryKey, updated);
      if (updated.time_zone !== workspace.time_zone) {
        queryClient.removeQueries({
          queryKey: ['workspaces', workspace.id],
          predicate: (query) => ZONE_DEPENDENT.has(String(query.queryKey[2])),
        });
      }
      await queryClient.invalidateQueries({ queryKey: meQuery(api).queryKey });
      showToast('success', 'Workspace settings saved');
    },
    onError: (error) => {
      const problem = apiProblem(error);
      const next: Errors = {
        name: problem.fields.name,
        language: problem.fields.language,
        time_zone: problem.fields.time_zone,
      };
      const matched = Boolean(next.name ?? next.language ?? next.time_zone);
      setErrors(next);
      setFormError(matched ? null : problem.message);
      focusFirst(next);
    },
  });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (save.isPending) return;
    const parsed = z.safeParse(updateWorkspaceBodySchema, {
      name,
      language: language || undefined,
      // Sent when changed: a zone kept from before is not checked against this browser's list.
      time_zone: timeZone === workspace.time_zone ? undefined : timeZone,
    });
    if (!parsed.success) {
      const next = fieldMessages(parsed.error.issues) as Errors;
      setErrors(next);
      setFormError(null);
      focusFirst(next);
      return;
    }
    setErrors({});
    setFormError(null);
    save.mutate(parsed.data);
  };

  return (
    <form className="form" onSubmit={onSubmit} noValidate aria-busy={save.isPending || undefined}>
      <TextField
        ref={nameRef}
        label="Workspace name"
        value={name}
        onChange={(value) => {
          setName(value);
          setErrors((previous) => ({ ...previous, name: undefined }));
        }}
        error={errors.name}
        autoComplete="organization"
      />
      <div className="field">
        <label htmlFor="workspace-language">Content language</label>
        <select
          ref={languageRef}
          id="workspace-language"
          className="input"
          value={language}
          onChange={(event) => {
            setLanguage(event.target.value as WorkspaceLanguage);
            setErrors((previous) => ({ ...previous, language: undefined }));
          }}
          aria-invalid={errors.language ? true : undefined}
          aria-describedby={errors.language ? 'workspace-language-error' : undefined}
        >
          {language === '' ? <option value="">Choose a language</option> : null}
          {languageOptions().map((option) => (
            <option key={option.code} value={option.code}>
              {option.label}
            </option>
          ))}
        </select>
        <FieldError id="workspace-language-error" message={errors.language} />
      </div>
      <TimeZoneCombobox
        ref={timeZoneRef}
        label="Time zone"
        value={timeZone}
        onChange={(zone) => {
          setTimeZone(zone);
          setErrors((previous) => ({ ...previous, time_zone: undefined }));
        }}
        error={errors.time_zone}
      />
      <FormError message={formError} />
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save changes'}
        </button>
      </div>
    </form>
  );
}
