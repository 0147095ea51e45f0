// Scheduled digests, under the alert rules: a saved query's key figures, spikes, top posts and people of each day or
// week (the workspace's zone), e-mailed to chosen members and addresses. Owners and managers schedule and stop them;
// every member sees them.
import { useId, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Digest, DigestFrequency } from '@contract/digests';
import type { SavedQuery } from '@contract/saved-queries';
import type { MemberResponse as Member } from '@contract/workspaces';
import { createDigest, deleteDigest, digestsQuery } from '@/api/digests';
import { apiProblem } from '@/api/errors';
import { CheckboxGroup } from '@/components/CheckboxGroup';
import { FormError } from '@/components/Field';
import { useApp } from '@/components/use-app';
import { formatDate } from '@/lib/date-time';
import { showToast } from '@/lib/toast';
import { memberName } from './AlertRuleForm';

export function DigestsSection({
  workspaceId,
  timeZone,
  queries,
  members,
}: {
  workspaceId: string;
  timeZone: string;
  queries: readonly SavedQuery[];
  members: readonly Member[];
}) {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const list = useQuery(digestsQuery(api, workspaceId));
  const [adding, setAdding] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: digestsQuery(api, workspaceId).queryKey });
  const stop = useMutation({
    mutationFn: (digest: Digest) => deleteDigest(api, workspaceId, digest.id),
    onSuccess: async () => {
      showToast('success', 'Digest stopped');
      await refresh();
    },
    onError: (error) => showToast('error', apiProblem(error).message),
  });
  const unavailable = list.data?.unavailable ?? null;
  const canEdit = (list.data?.can_edit ?? false) && !unavailable;
  const who = (digest: Digest) =>
    [
      ...digest.recipient_ids.map((id) => {
        const member = members.find((m) => m.user_id === id);
        return member ? memberName(member) : 'a former member';
      }),
      ...digest.addresses.map((a) =>
        digest.unconfirmed_addresses.includes(a) ? `${a} (awaiting confirmation)` : a,
      ),
    ].join(', ');
  return (
    <section className="digests" aria-labelledby="digests-title">
      <header className="section-header">
        <h2 id="digests-title">Scheduled digests</h2>
        {canEdit && !adding ? (
          <button type="button" className="button" disabled={!queries.length} onClick={() => setAdding(true)}>
            New digest
          </button>
        ) : null}
      </header>
      <p className="small muted">
        A saved query&apos;s figures against the period before, its spikes, top posts and people, e-mailed
        after each day or week (Monday to Sunday) of {timeZone}, with a link to the dashboard of that period.
        An address that is not a member&apos;s gets nothing until it confirms through the link of a first
        e-mail. At most {list.data?.daily_cap ?? 200} e-mails a day for the workspace&apos;s digests together.
      </p>
      {unavailable ? <p className="notice">{unavailable}</p> : null}
      {adding ? (
        <DigestForm
          workspaceId={workspaceId}
          queries={queries}
          members={members}
          onDone={async () => {
            setAdding(false);
            await refresh();
          }}
          onCancel={() => setAdding(false)}
        />
      ) : null}
      {list.isError ? <FormError message={apiProblem(list.error).message} /> : null}
      {list.data && !list.data.digests.length ? <p>No digests yet.</p> : null}
      {list.data?.digests.length ? (
        <ul className="digest-list">
          {list.data.digests.map((digest) => (
            <li key={digest.id}>
              <strong>
                {digest.frequency === 'daily' ? 'Daily' : 'Weekly'}: {digest.saved_query_name}
              </strong>{' '}
              <span className="muted">
                to {who(digest)} ·{' '}
                {digest.last_sent_period
                  ? `last sent for the ${digest.frequency === 'daily' ? 'day' : 'week'} of ${formatDate(digest.last_sent_period, timeZone)}`
                  : 'not sent yet'}
              </span>
              {canEdit ? (
                <button
                  type="button"
                  className="button danger-text small"
                  aria-label={`Stop the ${digest.frequency} digest of ${digest.saved_query_name}`}
                  disabled={stop.isPending}
                  onClick={() => stop.mutate(digest)}
                >
                  Stop
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function DigestForm({
  workspaceId,
  queries,
  members,
  onDone,
  onCancel,
}: {
  workspaceId: string;
  queries: readonly SavedQuery[];
  members: readonly Member[];
  onDone: () => Promise<void>;
  onCancel: () => void;
}) {
  const { api } = useApp();
  const id = useId();
  const [savedQueryId, setSavedQueryId] = useState(queries[0]?.id ?? '');
  const [frequency, setFrequency] = useState<DigestFrequency>('weekly');
  const [recipients, setRecipients] = useState<string[]>([]);
  const [addresses, setAddresses] = useState('');
  const save = useMutation({
    mutationFn: () =>
      createDigest(api, workspaceId, {
        saved_query_id: savedQueryId,
        frequency,
        recipient_ids: recipients,
        addresses: addresses
          .split(/[\s,;]+/)
          .map((a) => a.trim())
          .filter(Boolean),
      }),
    onSuccess: async () => {
      showToast('success', 'Digest scheduled');
      await onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="digest-form" onSubmit={submit} aria-label="New digest">
      <div className="field">
        <label htmlFor={`${id}-query`}>Saved query</label>
        <select
          id={`${id}-query`}
          className="input"
          value={savedQueryId}
          onChange={(event) => setSavedQueryId(event.target.value)}
        >
          {queries.map((q) => (
            <option key={q.id} value={q.id}>
              {q.name}
            </option>
          ))}
        </select>
      </div>
      <fieldset className="choice-group compact">
        <legend>Every</legend>
        {(['daily', 'weekly'] as const).map((value) => (
          <label key={value} className="choice">
            <input
              type="radio"
              name={`${id}-frequency`}
              checked={frequency === value}
              onChange={() => setFrequency(value)}
            />
            {value === 'daily' ? 'Day' : 'Week (Monday to Sunday)'}
          </label>
        ))}
      </fieldset>
      <CheckboxGroup
        legend="Members"
        options={members.map((m) => ({ value: m.user_id, label: memberName(m) }))}
        selected={recipients}
        onChange={setRecipients}
      />
      <div className="field">
        <label htmlFor={`${id}-addresses`}>Other e-mail addresses</label>
        <input
          id={`${id}-addresses`}
          className="input"
          value={addresses}
          onChange={(event) => setAddresses(event.target.value)}
          placeholder="client@example.com, team@example.com"
        />
      </div>
      {save.isError ? <FormError message={apiProblem(save.error).message} /> : null}
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={save.isPending || !savedQueryId}>
          {save.isPending ? 'Scheduling…' : 'Schedule digest'}
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
