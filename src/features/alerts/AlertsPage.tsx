// Alerts: the workspace's alert rules, each on a saved query, with what it watches, who is told and how, when it last
// fired, and whether the reader muted it. Every member reads them and mutes or unmutes them for themselves; owners and
// managers make, change, switch off and delete them (viewers see why they cannot). ?query=<id> shows one saved query's
// rules (the saved queries list links here); ?edit=new or ?edit=<rule id> opens the form. A rule whose last e-mail or
// webhook delivery failed says so, with why; owners and managers open its recent deliveries and send a test of it.
import { Fragment, useState } from 'react';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useMutation, useSuspenseQuery } from '@tanstack/react-query';
import type { AlertRule } from '@contract/alerts';
import { alertRulesQuery, deleteAlertRule, muteAlertRule } from '@/api/alerts';
import { apiProblem } from '@/api/errors';
import { meQuery, workspaceQuery } from '@/api/queries';
import { savedQueriesQuery } from '@/api/saved-queries';
import { membersQuery } from '@/api/workspaces';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { EmptyState, PageFrame } from '@/components/PageFrame';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import { AlertRuleForm, memberName } from './AlertRuleForm';
import { DigestsSection } from './DigestsSection';
import { RuleDeliveries } from './RuleDeliveries';
import './alerts.css';

const ROUTE = '/_authed/workspace/$workspaceId/alerts';
const VIEWER_REASON =
  'Only owners and managers can make and change alert rules. You can mute a rule for yourself.';
const VIEWER_REASON_ID = 'alerts-viewer-reason';

export function AlertsPage() {
  const { workspaceId } = useParams({ from: ROUTE });
  const { edit, query } = useSearch({ from: ROUTE });
  const navigate = useNavigate({ from: '/workspace/$workspaceId/alerts' });
  const { api, queryClient } = useApp();
  const me = useSuspenseQuery(meQuery(api)).data;
  const workspace = useSuspenseQuery(workspaceQuery(api, workspaceId)).data;
  const { rules, can_edit: canEdit } = useSuspenseQuery(alertRulesQuery(api, workspaceId)).data;
  const { saved_queries: queries } = useSuspenseQuery(savedQueriesQuery(api, workspaceId)).data;
  const members = useSuspenseQuery(membersQuery(api, workspaceId)).data;
  const [deleting, setDeleting] = useState<AlertRule | null>(null);
  /** The rule whose deliveries are open. */
  const [delivering, setDelivering] = useState<string | null>(null);
  const at = (seconds: number) =>
    new Date(seconds * 1000).toLocaleString('en-GB', {
      timeZone: workspace.time_zone,
      dateStyle: 'medium',
      timeStyle: 'short',
    });

  const queryName = (id: string) => queries.find((q) => q.id === id)?.name ?? 'A deleted saved query';
  const shown = query ? rules.filter((r) => r.saved_query_id === query) : rules;
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: alertRulesQuery(api, workspaceId).queryKey });
  const openForm = (target: string) => void navigate({ search: (s) => ({ ...s, edit: target }) });
  const closeForm = () => void navigate({ search: (s) => ({ ...s, edit: undefined }) });

  const mute = useMutation({
    mutationFn: (rule: AlertRule) => muteAlertRule(api, workspaceId, rule.id, !rule.muted),
    onSuccess: async (rule) => {
      showToast('success', rule.muted ? 'Muted for you' : 'Unmuted');
      await refresh();
    },
    onError: (error) => showToast('error', apiProblem(error).message),
  });
  const remove = useMutation({
    mutationFn: (rule: AlertRule) => deleteAlertRule(api, workspaceId, rule.id),
    onSuccess: async () => {
      setDeleting(null);
      showToast('success', 'Alert rule deleted');
      await refresh();
    },
  });

  const editing = edit && edit !== 'new' ? (rules.find((r) => r.id === edit) ?? null) : null;
  const formOpen = canEdit && queries.length > 0 && (edit === 'new' || editing !== null);
  const who = (rule: AlertRule) => {
    const names = rule.recipient_ids.map((id) => {
      const member = members.find((m) => m.user_id === id);
      return member ? (id === me.id ? 'you' : memberName(member)) : 'a former member';
    });
    const how = [rule.in_app ? 'in the app' : null, rule.email ? 'by e-mail' : null]
      .filter(Boolean)
      .join(' and ');
    const people = names.length && how ? `${names.join(', ')} (${how})` : '';
    const hook = rule.webhook_host ? `a webhook to ${rule.webhook_host}` : '';
    return [people, hook].filter(Boolean).join('; ') || 'No one';
  };

  return (
    <PageFrame
      title="Alerts"
      description={`Be told when a saved query spikes, reaches a volume, turns negative, or a source it is tracked on goes silent. Windows are hours and days of ${workspace.time_zone}.`}
      actions={
        <button
          type="button"
          className="button primary"
          disabled={!canEdit || formOpen || queries.length === 0}
          aria-describedby={canEdit ? undefined : VIEWER_REASON_ID}
          title={canEdit ? undefined : VIEWER_REASON}
          onClick={() => openForm('new')}
        >
          New alert rule
        </button>
      }
    >
      <div className="notices">
        {canEdit ? null : (
          <p id={VIEWER_REASON_ID} className="notice">
            {VIEWER_REASON}
          </p>
        )}
        {query ? (
          <p className="notice">
            The rules of “{queryName(query)}”.{' '}
            <Link to="/workspace/$workspaceId/alerts" params={{ workspaceId }} search={{}}>
              Show every rule
            </Link>
          </p>
        ) : null}
      </div>
      {formOpen ? (
        <AlertRuleForm
          key={edit}
          workspaceId={workspaceId}
          editing={editing}
          queries={queries}
          members={members}
          me={me.id}
          initialQueryId={query}
          onClose={closeForm}
        />
      ) : null}
      {queries.length === 0 ? (
        <EmptyState
          title="No saved queries yet"
          action={
            <Link
              to="/workspace/$workspaceId/saved-queries"
              params={{ workspaceId }}
              className="button primary"
            >
              Go to saved queries
            </Link>
          }
        >
          An alert rule watches a saved query: save one first.
        </EmptyState>
      ) : shown.length === 0 ? (
        formOpen ? null : (
          <EmptyState
            title="No alert rules yet"
            action={
              canEdit ? (
                <button type="button" className="button primary" onClick={() => openForm('new')}>
                  Make your first alert rule
                </button>
              ) : null
            }
          >
            {canEdit
              ? 'A rule tells you, in the app, by e-mail or through a webhook, when a saved query spikes.'
              : 'Owners and managers of this workspace can make them; they will appear here.'}
          </EmptyState>
        )
      ) : (
        <div className="table-wrap">
          <table className="table alert-rules">
            <caption className="visually-hidden">Alert rules</caption>
            <thead>
              <tr>
                <th scope="col">Saved query</th>
                <th scope="col">Alert when</th>
                <th scope="col">Who is told</th>
                <th scope="col">Last fired</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((rule) => (
                <Fragment key={rule.id}>
                  <tr className={rule.enabled ? undefined : 'off'}>
                    <th scope="row">
                      <Link
                        to="/workspace/$workspaceId/insight/overview"
                        params={{ workspaceId }}
                        search={{ query: rule.saved_query_id }}
                      >
                        {queryName(rule.saved_query_id)}
                      </Link>
                    </th>
                    <td>
                      {rule.summary}
                      {rule.enabled ? null : <span className="tag">Off</span>}
                      {rule.muted ? <span className="tag">Muted for you</span> : null}
                      {rule.last_delivery && !rule.last_delivery.ok ? (
                        <p className="delivery-failed">
                          Last delivery failed{' '}
                          <time dateTime={new Date(rule.last_delivery.at * 1000).toISOString()}>
                            {at(rule.last_delivery.at)}
                          </time>
                          {rule.last_delivery.error ? `: ${rule.last_delivery.error}` : '.'}
                        </p>
                      ) : null}
                    </td>
                    <td>{who(rule)}</td>
                    <td>
                      {rule.last_fired_at ? (
                        <time dateTime={new Date(rule.last_fired_at * 1000).toISOString()}>
                          {new Date(rule.last_fired_at * 1000).toLocaleString('en-GB', {
                            timeZone: workspace.time_zone,
                            dateStyle: 'medium',
                            timeStyle: 'short',
                          })}
                        </time>
                      ) : (
                        <span className="muted">Not yet</span>
                      )}
                    </td>
                    <td className="actions">
                      <button
                        type="button"
                        className="button small"
                        disabled={mute.isPending && mute.variables.id === rule.id}
                        onClick={() => mute.mutate(rule)}
                      >
                        {rule.muted ? 'Unmute' : 'Mute for me'}
                      </button>
                      {canEdit ? (
                        <>
                          <button
                            type="button"
                            className="button small"
                            aria-expanded={delivering === rule.id}
                            aria-controls={`deliveries-${rule.id}`}
                            onClick={() => setDelivering(delivering === rule.id ? null : rule.id)}
                          >
                            Deliveries
                            <span className="visually-hidden">
                              {' '}
                              of the rule on {queryName(rule.saved_query_id)}
                            </span>
                          </button>
                          <button type="button" className="button small" onClick={() => openForm(rule.id)}>
                            Edit
                            <span className="visually-hidden">
                              {' '}
                              the rule on {queryName(rule.saved_query_id)}
                            </span>
                          </button>
                          <button
                            type="button"
                            className="button small danger-text"
                            onClick={() => {
                              remove.reset();
                              setDeleting(rule);
                            }}
                          >
                            Delete
                            <span className="visually-hidden">
                              {' '}
                              the rule on {queryName(rule.saved_query_id)}
                            </span>
                          </button>
                        </>
                      ) : null}
                    </td>
                  </tr>
                  {canEdit && delivering === rule.id ? (
                    <tr id={`deliveries-${rule.id}`} className="deliveries-row">
                      <td colSpan={5}>
                        <RuleDeliveries
                          workspaceId={workspaceId}
                          ruleId={rule.id}
                          ruleName={queryName(rule.saved_query_id)}
                          timeZone={workspace.time_zone}
                        />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <DigestsSection
        workspaceId={workspaceId}
        timeZone={workspace.time_zone}
        queries={queries}
        members={members}
      />
      {deleting ? (
        <ConfirmDialog
          title="Delete this alert rule?"
          confirmLabel="Delete"
          pendingLabel="Deleting…"
          destructive
          pending={remove.isPending}
          error={remove.isError ? apiProblem(remove.error).message : null}
          onConfirm={() => remove.mutate(deleting)}
          onCancel={() => setDeleting(null)}
        >
          “{deleting.summary}” on {queryName(deleting.saved_query_id)} stops, and its notifications go with
          it.
        </ConfirmDialog>
      ) : null}
    </PageFrame>
  );
}
