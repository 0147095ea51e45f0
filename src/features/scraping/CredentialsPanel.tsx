// The credentials the Reddit, YouTube and X sources use: added here by staff, stored encrypted by the server, never
// shown again (a row says whether this server can open them). Each row tests its connection and says in words what
// works or what is wrong; YouTube's row shows the quota spent today.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { CREDENTIAL_KINDS, YOUTUBE_DEFAULT_DAILY_QUOTA, type CredentialKind } from '@contract/scraping';
import {
  createCredentialBodySchema,
  type CreateCredentialBody,
  type CredentialTestResult,
  type SourceCredential,
} from '@contract/source-credentials';
import {
  createCredential,
  credentialsQuery,
  deleteCredential,
  replaceCredential,
  testCredential,
} from '@/api/scraping';
import { apiProblem } from '@/api/errors';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { FormError } from '@/components/Field';
import { useApp } from '@/components/use-app';
import { when } from './scraping-format';

export const CREDENTIAL_NAMES: Record<CredentialKind, string> = {
  reddit: 'Reddit',
  youtube: 'YouTube',
  x: 'X',
};

/** Each kind's fields: name in the API, label, hint, whether it is secret (a password field). */
const FIELDS: Record<CredentialKind, { key: string; label: string; hint: string; secret: boolean }[]> = {
  reddit: [
    {
      key: 'client_id',
      label: 'Client id',
      hint: 'Of a “script” or “web” app at reddit.com/prefs/apps',
      secret: false,
    },
    { key: 'client_secret', label: 'Client secret', hint: 'Shown once when the app is made', secret: true },
    {
      key: 'username',
      label: 'Reddit user name (optional)',
      hint: 'The app’s owner; Reddit wants it in the User-Agent',
      secret: false,
    },
  ],
  youtube: [
    {
      key: 'api_key',
      label: 'API key',
      hint: 'A Google Cloud key with the YouTube Data API v3 enabled',
      secret: true,
    },
  ],
  x: [
    { key: 'bearer_token', label: 'Bearer token', hint: 'The app’s bearer token (app-only)', secret: true },
  ],
};

export function CredentialsPanel() {
  const { api } = useApp();
  const list = useQuery(credentialsQuery(api));
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<SourceCredential | null>(null);
  const [replacing, setReplacing] = useState<SourceCredential | null>(null);
  const [tests, setTests] = useState<Record<string, CredentialTestResult | 'testing'>>({});
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: ['scraping', 'credentials'] });
  const remove = useMutation({
    mutationFn: (credential: SourceCredential) => deleteCredential(api, credential.id),
    onSuccess: async () => {
      setDeleting(null);
      await refresh();
    },
  });
  const test = async (credential: SourceCredential) => {
    setTests((t) => ({ ...t, [credential.id]: 'testing' }));
    try {
      const result = await testCredential(api, credential.id);
      setTests((t) => ({ ...t, [credential.id]: result }));
    } catch (error) {
      const at = Math.floor(Date.now() / 1000);
      setTests((t) => ({ ...t, [credential.id]: { ok: false, message: apiProblem(error).message, at } }));
    }
    await refresh();
  };
  return (
    <section aria-labelledby="credentials-heading" className="scraping-credentials">
      <div className="scraping-section-head">
        <h2 id="credentials-heading">Credentials</h2>
        <button
          type="button"
          className="button"
          aria-expanded={adding}
          onClick={() => setAdding((a) => !a)}
          disabled={list.data?.can_store === false}
        >
          Add credentials
        </button>
      </div>
      <p className="field-hint">
        Reddit, YouTube and X sources need an app’s credentials. They are stored encrypted and never shown
        again.
      </p>
      {list.data?.can_store === false && (
        <p className="form-error" role="alert">
          Credentials cannot be stored: the server has no SECRETS_KEY (docs/scraping.md).
        </p>
      )}
      {(adding || replacing) && (
        <CredentialForm
          key={replacing?.id ?? 'new'}
          credential={replacing}
          onDone={async () => {
            setAdding(false);
            setReplacing(null);
            await refresh();
          }}
        />
      )}
      {list.isPending ? (
        <p role="status">Loading credentials…</p>
      ) : list.isError ? (
        <FormError message={apiProblem(list.error).message} />
      ) : list.data.credentials.length === 0 ? (
        <p>No credentials yet.</p>
      ) : (
        <div className="scraping-scroll" tabIndex={0} role="group" aria-labelledby="credentials-heading">
          <table className="scraping-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Source</th>
                <th scope="col">Connection</th>
                <th scope="col">Quota today</th>
                <th scope="col">Jobs</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.credentials.map((credential) => {
                const result = tests[credential.id] ?? credential.last_test;
                return (
                  <tr key={credential.id}>
                    <th scope="row">{credential.name}</th>
                    <td>{CREDENTIAL_NAMES[credential.kind]}</td>
                    <td>
                      <span
                        role="status"
                        className={result !== 'testing' && result?.ok === false ? 'field-error' : undefined}
                      >
                        {!credential.usable
                          ? credential.problem
                          : result === 'testing'
                            ? 'Testing…'
                            : result
                              ? `${result.ok ? '✓' : '✗'} ${result.message} (${when(result.at)})`
                              : 'Not tested yet'}
                      </span>
                    </td>
                    <td>
                      {credential.daily_quota === null
                        ? '—'
                        : `${(credential.spent_today ?? 0).toLocaleString('en-US')} of ${credential.daily_quota.toLocaleString('en-US')} units`}
                    </td>
                    <td>{credential.jobs}</td>
                    <td className="scraping-actions">
                      <button
                        type="button"
                        className="button"
                        disabled={result === 'testing' || !credential.usable}
                        aria-label={`Test connection: ${credential.name}`}
                        onClick={() => void test(credential)}
                      >
                        Test connection
                      </button>
                      <button
                        type="button"
                        className="button"
                        aria-label={`Replace the fields of ${credential.name}`}
                        aria-expanded={replacing?.id === credential.id}
                        onClick={() => {
                          setAdding(false);
                          setReplacing(credential);
                        }}
                      >
                        Replace…
                      </button>
                      <button
                        type="button"
                        className="button danger"
                        aria-label={`Delete ${credential.name}`}
                        onClick={() => setDeleting(credential)}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete “${deleting.name}”?`}
          confirmLabel="Delete"
          pendingLabel="Deleting…"
          destructive
          pending={remove.isPending}
          error={remove.isError ? apiProblem(remove.error).message : null}
          onConfirm={() => remove.mutate(deleting)}
          onCancel={() => {
            remove.reset();
            setDeleting(null);
          }}
        >
          Jobs cannot use them afterwards; a job still using them must be cancelled first.
        </ConfirmDialog>
      )}
    </section>
  );
}

/** New credentials, or new fields for existing ones (`credential`): the old fields are never shown. */
function CredentialForm({
  credential,
  onDone,
}: {
  credential: SourceCredential | null;
  onDone: () => Promise<void>;
}) {
  const { api } = useApp();
  const [kind, setKind] = useState<CredentialKind>(credential?.kind ?? 'reddit');
  const [name, setName] = useState(credential?.name ?? '');
  const [fields, setFields] = useState<Record<string, string>>({});
  const [quota, setQuota] = useState(String(credential?.daily_quota ?? YOUTUBE_DEFAULT_DAILY_QUOTA));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const save = useMutation({
    mutationFn: (body: CreateCredentialBody) =>
      credential
        ? replaceCredential(api, credential.id, {
            name: body.name,
            secret: body.secret,
            ...('daily_quota' in body && { daily_quota: body.daily_quota }),
          })
        : createCredential(api, body),
    onSuccess: onDone,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Optional fields left empty are absent, not empty strings.
    const secret = Object.fromEntries(Object.entries(fields).filter(([, v]) => v.trim() !== ''));
    const body = {
      kind,
      name,
      secret,
      ...(kind === 'youtube' && { daily_quota: quota.trim() === '' ? undefined : Number(quota) }),
    };
    const parsed = createCredentialBodySchema.safeParse(body);
    if (!parsed.success) {
      const found: Record<string, string> = {};
      for (const issue of parsed.error.issues) found[issue.path.join('.')] ??= issue.message;
      setErrors(found);
      return;
    }
    setErrors({});
    save.mutate(body as CreateCredentialBody);
  };
  const input = (
    id: string,
    label: string,
    value: string,
    onChange: (v: string) => void,
    error: string | undefined,
    hint?: string,
    type: 'text' | 'password' = 'text',
  ) => (
    <div className="field" key={id}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        className="input"
        type={type}
        autoComplete="off"
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={
          [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined
        }
        onChange={(e) => onChange(e.target.value)}
      />
      {hint && (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
  return (
    <form className="scraping-form" onSubmit={submit} aria-labelledby="credential-form-heading" noValidate>
      <h3 id="credential-form-heading">
        {credential ? `New fields for “${credential.name}”` : 'New credentials'}
      </h3>
      <div className="field">
        <label htmlFor="credential-kind">Source</label>
        <select
          id="credential-kind"
          className="input"
          value={kind}
          disabled={credential !== null}
          onChange={(e) => {
            setKind(e.target.value as CredentialKind);
            setFields({});
            setErrors({});
          }}
        >
          {CREDENTIAL_KINDS.map((k) => (
            <option key={k} value={k}>
              {CREDENTIAL_NAMES[k]}
            </option>
          ))}
        </select>
      </div>
      {input('credential-name', 'Name', name, setName, errors.name, 'How jobs and this list call them')}
      {FIELDS[kind].map((f) =>
        input(
          `credential-${f.key}`,
          f.label,
          fields[f.key] ?? '',
          (v) => setFields((all) => ({ ...all, [f.key]: v })),
          errors[`secret.${f.key}`],
          f.hint,
          f.secret ? 'password' : 'text',
        ),
      )}
      {kind === 'youtube' &&
        input(
          'credential-quota',
          'Daily quota (units)',
          quota,
          setQuota,
          errors.daily_quota,
          'The Google Cloud project’s quota: 10,000 by default. Jobs stop before it and resume the next day.',
        )}
      <FormError message={save.isError ? apiProblem(save.error).message : null} />
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save credentials'}
        </button>
      </div>
    </form>
  );
}
