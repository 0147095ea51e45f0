// A rule's recent e-mail and webhook deliveries (owners and managers): when, to whom, the result, the receiver's
// status or the error in words, newest first; and "Send a test", which sends a message marked as a test through the
// same path and shows its attempts here with the others.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AlertDeliveryLogEntry } from '@contract/alerts';
import { alertDeliveriesQuery, alertRulesQuery, sendAlertTest } from '@/api/alerts';
import { apiProblem } from '@/api/errors';
import { FormError } from '@/components/Field';
import { Pending } from '@/components/Pending';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';

/** An attempt's result in words. */
function deliveryResult(entry: Pick<AlertDeliveryLogEntry, 'ok' | 'will_retry'>): string {
  if (entry.ok) return 'Delivered';
  return entry.will_retry ? 'Failed, will be retried' : 'Failed, given up';
}

export function RuleDeliveries({
  workspaceId,
  ruleId,
  ruleName,
  timeZone,
}: {
  workspaceId: string;
  ruleId: string;
  ruleName: string;
  timeZone: string;
}) {
  const { api } = useApp();
  const queryClient = useQueryClient();
  const log = useQuery(alertDeliveriesQuery(api, workspaceId, ruleId));
  const test = useMutation({
    mutationFn: () => sendAlertTest(api, workspaceId, ruleId),
    onSuccess: async ({ deliveries }) => {
      const failed = deliveries.filter((d) => !d.ok).length;
      showToast(
        failed ? 'warning' : 'success',
        failed ? `Test sent: ${failed} of ${deliveries.length} failed` : 'Test sent',
      );
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: alertDeliveriesQuery(api, workspaceId, ruleId).queryKey }),
        queryClient.invalidateQueries({ queryKey: alertRulesQuery(api, workspaceId).queryKey }),
      ]);
    },
  });
  const when = (at: number) =>
    new Date(at * 1000).toLocaleString('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'medium' });
  return (
    <div className="rule-deliveries">
      <div className="rule-deliveries-actions">
        <button
          type="button"
          className="button small"
          disabled={test.isPending}
          onClick={() => test.mutate()}
        >
          {test.isPending ? 'Sending a test…' : 'Send a test'}
          <span className="visually-hidden"> of the rule on {ruleName}</span>
        </button>
        <span className="small muted">
          A message marked as a test, to the rule&apos;s webhook and e-mail recipients.
        </span>
      </div>
      {test.isError ? <FormError message={apiProblem(test.error).message} /> : null}
      {log.isPending ? <Pending label="Loading deliveries…" /> : null}
      {log.isError ? <FormError message={apiProblem(log.error).message} /> : null}
      {log.data && !log.data.deliveries.length ? (
        <p className="small muted">No e-mail or webhook deliveries yet.</p>
      ) : null}
      {log.data?.deliveries.length ? (
        <table className="table deliveries">
          <caption>Recent deliveries of the rule on {ruleName}</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Channel</th>
              <th scope="col">To</th>
              <th scope="col">Result</th>
              <th scope="col">Receiver&apos;s answer</th>
            </tr>
          </thead>
          <tbody>
            {log.data.deliveries.map((entry) => (
              <tr key={entry.id} className={entry.ok ? undefined : 'failed'}>
                <td>
                  <time dateTime={new Date(entry.at * 1000).toISOString()}>{when(entry.at)}</time>
                  {entry.test ? <span className="tag">Test</span> : null}
                </td>
                <td>{entry.channel === 'email' ? 'E-mail' : 'Webhook'}</td>
                <td>{entry.recipient}</td>
                <td>{deliveryResult(entry)}</td>
                <td>
                  {[entry.status_code === null ? null : `Status ${entry.status_code}`, entry.error]
                    .filter(Boolean)
                    .join(': ') || '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
