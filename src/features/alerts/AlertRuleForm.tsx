// Make or change an alert rule (owners and managers): the saved query it watches, its kind (spike, volume threshold,
// sentiment shift, or a tracked source gone silent) and window (an hour or a day; none for a silent source), the
// threshold the kind needs (hours for a silent source), who is told and how (members in the app and by e-mail, a
// webhook). The server checks the same rules and its refusal is shown here; the webhook's
// signing secret is shown once the rule exists, for the receiver to check x-murmur-signature.
import { CheckboxGroup } from '@/components/CheckboxGroup';
import { useId, useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import {
  ALERT_KIND_LABELS,
  ALERT_KINDS,
  SENTIMENT_SHIFT_MIN_MENTIONS,
  SOURCE_SILENT_HOURS_MAX,
  SPIKE_HISTORY,
  thresholdProblem,
  type AlertKind,
  type AlertPeriod,
  type AlertRule,
  type CreateAlertRuleBody,
} from '@contract/alerts';
import type { SavedQuery } from '@contract/saved-queries';
import type { MemberResponse } from '@contract/workspaces';
import { alertRulesQuery, createAlertRule, updateAlertRule } from '@/api/alerts';
import { apiProblem } from '@/api/errors';
import { CopyField } from '@/components/CopyField';
import { FormError, TextField } from '@/components/Field';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';

const KIND_HINTS: Record<AlertKind, (period: AlertPeriod) => string> = {
  spike: (period) =>
    `When the ${period}'s mentions rise above the mean of it and the ${SPIKE_HISTORY[period]} ${period}s before it ` +
    'plus two standard deviations (and number at least 5): the spike the overview marks.',
  volume: (period) => `When the ${period}'s mentions reach the threshold.`,
  sentiment_shift: (period) =>
    `When the share of negative mentions in the ${period} rises by the threshold in points against the ${period} ` +
    `before (with at least ${SENTIMENT_SHIFT_MIN_MENTIONS} mentions).`,
  source_silent: () =>
    'When a source the saved query is tracked on has collected nothing for it for the hours given: a gap in its ' +
    'coverage (rate limited, quota spent, unreachable…) that long, or no new post that long. Told once per source ' +
    'and silence, with the reason when there is one. The saved query must be tracked (Saved queries, Track).',
};

const THRESHOLD_FIELDS: Record<Exclude<AlertKind, 'spike'>, { label: string; hint: string }> = {
  volume: { label: 'Mentions (threshold)', hint: 'For example 500.' },
  sentiment_shift: { label: 'Rise in points (threshold)', hint: 'From 1 to 100, e.g. 15 for 20 % → 35 %.' },
  source_silent: {
    label: 'Hours silent (threshold)',
    hint: `From 1 to ${SOURCE_SILENT_HOURS_MAX} (a week), e.g. 6.`,
  },
};

export const memberName = (m: MemberResponse) =>
  [m.first_name, m.last_name].filter(Boolean).join(' ') || m.email;

interface Draft {
  savedQueryId: string;
  kind: AlertKind;
  period: AlertPeriod;
  threshold: string;
  inApp: boolean;
  email: boolean;
  recipientIds: string[];
  webhookUrl: string;
  enabled: boolean;
}

export function AlertRuleForm({
  workspaceId,
  editing,
  queries,
  members,
  me,
  initialQueryId,
  onClose,
}: {
  workspaceId: string;
  editing: AlertRule | null;
  queries: SavedQuery[];
  members: MemberResponse[];
  me: string;
  initialQueryId: string | undefined;
  onClose: () => void;
}) {
  const { api, queryClient } = useApp();
  const ids = useId();
  const [draft, setDraft] = useState<Draft>(() => ({
    savedQueryId: editing?.saved_query_id ?? initialQueryId ?? queries[0]?.id ?? '',
    kind: editing?.kind ?? 'spike',
    period: editing?.period ?? 'hour',
    threshold: editing?.threshold === null || editing === null ? '' : String(editing.threshold),
    inApp: editing?.in_app ?? true,
    email: editing?.email ?? false,
    recipientIds: editing?.recipient_ids ?? [me],
    webhookUrl: editing?.webhook_url ?? '',
    enabled: editing?.enabled ?? true,
  }));
  const [thresholdError, setThresholdError] = useState<string>();
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));

  const save = useMutation({
    mutationFn: (body: CreateAlertRuleBody) =>
      editing
        ? updateAlertRule(api, workspaceId, editing.id, {
            kind: body.kind,
            period: body.period,
            threshold: body.threshold,
            in_app: body.in_app,
            email: body.email,
            recipient_ids: body.recipient_ids,
            webhook_url: body.webhook_url,
            enabled: body.enabled,
          })
        : createAlertRule(api, workspaceId, body),
    onSuccess: async (rule) => {
      showToast('success', editing ? 'Alert rule saved' : `Alert rule made: ${rule.summary}`);
      await queryClient.invalidateQueries({ queryKey: alertRulesQuery(api, workspaceId).queryKey });
      onClose();
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const threshold =
      draft.kind === 'spike' || draft.threshold.trim() === '' ? null : Number(draft.threshold);
    const problem = thresholdProblem(
      draft.kind,
      threshold !== null && !Number.isInteger(threshold) ? Number.NaN : threshold,
    );
    setThresholdError(problem ?? undefined);
    if (problem) return;
    save.mutate({
      saved_query_id: draft.savedQueryId,
      kind: draft.kind,
      period: draft.period,
      threshold,
      in_app: draft.inApp,
      email: draft.email,
      recipient_ids: draft.recipientIds,
      webhook_url: draft.webhookUrl.trim() || null,
      enabled: draft.enabled,
    });
  };

  const refusal = save.isError ? apiProblem(save.error) : null;
  // A refused webhook URL is said at its field; any other refusal under the form.
  const urlRefused = refusal?.code === 'invalid_alert_rule' && /webhook|URL/i.test(refusal.message);
  return (
    <form className="form alert-form card" onSubmit={submit} aria-labelledby={`${ids}-title`} noValidate>
      <h2 id={`${ids}-title`}>{editing ? 'Change the alert rule' : 'New alert rule'}</h2>
      <div className="field">
        <label htmlFor={`${ids}-query`}>Saved query</label>
        <select
          id={`${ids}-query`}
          className="input"
          value={draft.savedQueryId}
          disabled={editing !== null}
          onChange={(event) => set({ savedQueryId: event.target.value })}
        >
          {queries.map((q) => (
            <option key={q.id} value={q.id}>
              {q.name}
            </option>
          ))}
        </select>
      </div>
      <fieldset className="choice-group compact" aria-describedby={`${ids}-kind-hint`}>
        <legend>Alert when</legend>
        {ALERT_KINDS.map((kind) => (
          <label key={kind} className="choice">
            <input
              type="radio"
              name={`${ids}-kind`}
              value={kind}
              checked={draft.kind === kind}
              onChange={() => set({ kind, threshold: '' })}
            />
            {ALERT_KIND_LABELS[kind]}
          </label>
        ))}
      </fieldset>
      {draft.kind === 'source_silent' ? null : (
        <fieldset className="choice-group compact">
          <legend>Window</legend>
          {(['hour', 'day'] as const).map((period) => (
            <label key={period} className="choice">
              <input
                type="radio"
                name={`${ids}-period`}
                value={period}
                checked={draft.period === period}
                onChange={() => set({ period })}
              />
              {period === 'hour' ? 'An hour' : 'A day'}
            </label>
          ))}
        </fieldset>
      )}
      <p id={`${ids}-kind-hint`} className="field-hint">
        {KIND_HINTS[draft.kind](draft.period)} Times are the workspace&apos;s zone.
      </p>
      {draft.kind === 'spike' ? null : (
        <TextField
          label={THRESHOLD_FIELDS[draft.kind].label}
          inputMode="numeric"
          value={draft.threshold}
          onChange={(threshold) => set({ threshold })}
          error={thresholdError}
          hint={THRESHOLD_FIELDS[draft.kind].hint}
        />
      )}
      <CheckboxGroup
        legend="Who is told"
        options={members.map((m) => ({
          value: m.user_id,
          label: `${memberName(m)}${m.user_id === me ? ' (you)' : ''}`,
        }))}
        selected={draft.recipientIds}
        onChange={(recipientIds) => set({ recipientIds })}
      />
      <fieldset className="choice-group compact">
        <legend>How</legend>
        <label className="choice">
          <input type="checkbox" checked={draft.inApp} onChange={(e) => set({ inApp: e.target.checked })} />
          In the app (the bell)
        </label>
        <label className="choice">
          <input type="checkbox" checked={draft.email} onChange={(e) => set({ email: e.target.checked })} />
          By e-mail
        </label>
      </fieldset>
      <TextField
        label="Webhook URL (optional)"
        type="url"
        value={draft.webhookUrl}
        onChange={(webhookUrl) => set({ webhookUrl })}
        hint="A Slack incoming webhook, or any https URL that takes a signed JSON POST."
        error={urlRefused ? refusal.message : undefined}
      />
      {editing?.webhook_secret && editing.webhook_url ? (
        <CopyField
          label="Signing secret"
          value={editing.webhook_secret}
          hint="Each delivery carries x-murmur-signature: t=<unix seconds>,v1=<HMAC-SHA256 of “t.body” with this secret>."
        />
      ) : null}
      <label className="choice">
        <input type="checkbox" checked={draft.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
        On (evaluated every minute and as new posts arrive)
      </label>
      <FormError message={refusal && !urlRefused ? refusal.message : null} />
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={save.isPending || !draft.savedQueryId}>
          {save.isPending ? 'Saving…' : editing ? 'Save rule' : 'Make rule'}
        </button>
        <button type="button" className="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
