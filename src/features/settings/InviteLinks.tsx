// Invite links: create one (its link is shown this once: the server keeps only a hash), list the active ones, revoke.
import { useState, type FormEvent } from 'react';
import { useMutation, useSuspenseQuery } from '@tanstack/react-query';
import * as z from 'zod/mini';
import {
  createInviteBodySchema,
  INVITE_DEFAULT_HOURS,
  INVITE_MAX_HOURS,
  INVITE_MAX_USES,
  type CreatedInviteResponse,
  type CreateInviteBody,
} from '@contract/invites';
import type { Privilege } from '@contract/workspaces';
import { createInvite, invitesQuery, revokeInvite } from '@/api/workspaces';
import { apiProblem } from '@/api/errors';
import { CopyField } from '@/components/CopyField';
import { FormError, TextField, fieldMessages } from '@/components/Field';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import { formatDateTime } from '@/lib/date-time';
import { invitableRoles, privilegeLabel } from './member-rules';

const EXPIRY_CHOICES = [
  { hours: 24, label: '1 day' },
  { hours: INVITE_DEFAULT_HOURS, label: '7 days' },
  { hours: INVITE_MAX_HOURS, label: '30 days' },
] as const;

/** The link a person opens: this app's own /invite page with the token (see src/routes/invite.tsx). */
const inviteUrl = (invite: Pick<CreatedInviteResponse, 'url_path'>) =>
  `${window.location.origin}${invite.url_path}`;

export function InviteLinks({
  workspaceId,
  actor,
  timeZone,
}: {
  workspaceId: string;
  actor: Privilege;
  /** The workspace's: the links' times are written in it. */
  timeZone: string;
}) {
  const { api, queryClient } = useApp();
  const invites = useSuspenseQuery(invitesQuery(api, workspaceId)).data;
  const [created, setCreated] = useState<CreatedInviteResponse | null>(null);

  const revoke = useMutation({
    mutationFn: (inviteId: string) => revokeInvite(api, workspaceId, inviteId),
    onSuccess: async (_, inviteId) => {
      if (created?.id === inviteId) setCreated(null);
      showToast('success', 'Invite link revoked');
      await queryClient.invalidateQueries({ queryKey: invitesQuery(api, workspaceId).queryKey });
    },
    onError: (error) => showToast('error', apiProblem(error).message),
  });

  return (
    <section className="settings-section" aria-labelledby="invites-title">
      <h2 id="invites-title">Invite links</h2>
      <p className="muted small">
        Anyone with a link can join until it expires, is used up or is revoked. Send it only to the people you
        mean.
      </p>
      <NewInviteForm
        workspaceId={workspaceId}
        roles={invitableRoles(actor)}
        onCreated={(invite) => {
          setCreated(invite);
          void queryClient.invalidateQueries({ queryKey: invitesQuery(api, workspaceId).queryKey });
        }}
      />
      {created ? (
        <div className="created-invite" role="status">
          <CopyField
            label="Invite link"
            value={inviteUrl(created)}
            hint="Copy it now: for your safety it is not shown again."
          />
          <button type="button" className="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      ) : null}
      <h3>Active links</h3>
      {invites.length === 0 ? (
        <p className="muted">No active invite links.</p>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Role</th>
                <th scope="col">Expires</th>
                <th scope="col">Uses</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invites.map((invite) => {
                const expires = formatDateTime(invite.expires_at, timeZone);
                return (
                  <tr key={invite.id}>
                    <td>{privilegeLabel[invite.privilege]}</td>
                    <td>{expires}</td>
                    <td>
                      {invite.max_uses === null ? `${invite.uses}` : `${invite.uses} of ${invite.max_uses}`}
                    </td>
                    <td>{formatDateTime(invite.created_at, timeZone)}</td>
                    <td className="actions">
                      <button
                        type="button"
                        className="button small danger-text"
                        aria-label={`Revoke ${privilegeLabel[invite.privilege].toLowerCase()} link expiring ${expires}`}
                        disabled={revoke.isPending && revoke.variables === invite.id}
                        onClick={() => revoke.mutate(invite.id)}
                      >
                        Revoke
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

type Errors = Partial<Record<'privilege' | 'expires_in_hours' | 'max_uses', string>>;

function NewInviteForm({
  workspaceId,
  roles,
  onCreated,
}: {
  workspaceId: string;
  roles: Array<'viewer' | 'manager'>;
  onCreated: (invite: CreatedInviteResponse) => void;
}) {
  const { api } = useApp();
  const [privilege, setPrivilege] = useState<'viewer' | 'manager'>('viewer');
  const [hours, setHours] = useState<number>(INVITE_DEFAULT_HOURS);
  const [maxUses, setMaxUses] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState<string | null>(null);

  const create = useMutation({
    mutationFn: (body: CreateInviteBody) => createInvite(api, workspaceId, body),
    onSuccess: (invite) => {
      setMaxUses('');
      onCreated(invite);
    },
    onError: (error) => {
      const problem = apiProblem(error);
      setErrors({ max_uses: problem.fields.max_uses });
      setFormError(problem.fields.max_uses ? null : problem.message);
    },
  });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (create.isPending) return;
    const body = {
      privilege,
      expires_in_hours: hours,
      max_uses: maxUses.trim() === '' ? undefined : Number(maxUses),
    };
    const parsed = z.safeParse(createInviteBodySchema, body);
    if (!parsed.success) {
      setErrors(fieldMessages(parsed.error.issues) as Errors);
      setFormError(null);
      return;
    }
    setErrors({});
    setFormError(null);
    create.mutate(parsed.data);
  };

  return (
    <form className="form inline-form invite-form" onSubmit={onSubmit} noValidate>
      <div className="field">
        <label htmlFor="invite-role">Role</label>
        <select
          id="invite-role"
          className="input"
          value={privilege}
          onChange={(event) => setPrivilege(event.target.value as 'viewer' | 'manager')}
        >
          {roles.map((role) => (
            <option key={role} value={role}>
              {privilegeLabel[role]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="invite-expiry">Expires after</label>
        <select
          id="invite-expiry"
          className="input"
          value={hours}
          onChange={(event) => setHours(Number(event.target.value))}
        >
          {EXPIRY_CHOICES.map((choice) => (
            <option key={choice.hours} value={choice.hours}>
              {choice.label}
            </option>
          ))}
        </select>
      </div>
      <TextField
        label="Maximum uses (optional)"
        placeholder="No limit"
        type="number"
        inputMode="numeric"
        min={1}
        max={INVITE_MAX_USES}
        value={maxUses}
        onChange={(value) => {
          setMaxUses(value);
          setErrors({});
        }}
        error={errors.max_uses}
      />
      <FormError message={formError} />
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create invite link'}
        </button>
      </div>
    </form>
  );
}
