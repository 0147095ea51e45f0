// The trial's end above every page of a trial workspace (in its time zone), with the way to a plan for its owners.
import { Link } from '@tanstack/react-router';
import type { WorkspaceResponse } from '@contract/workspaces';
import { daysUntil } from '@/lib/billing-format';
import { formatDate } from '@/lib/date-time';
import './trial-notice.css';

export function TrialNotice({ workspace }: { workspace: WorkspaceResponse }) {
  if (workspace.plan !== 'trial' || workspace.plan_expired_at === null) return null;
  const days = daysUntil(workspace.plan_expired_at);
  return (
    <p className={`trial-notice${days <= 3 ? ' warning' : ''}`} role="note">
      Trial: {days} {days === 1 ? 'day' : 'days'} left, until{' '}
      {formatDate(workspace.plan_expired_at, workspace.time_zone)} ({workspace.time_zone}).{' '}
      {workspace.privilege === 'owner' ? (
        <Link to="/workspace/$workspaceId/settings/plan" params={{ workspaceId: workspace.id }}>
          Choose a plan
        </Link>
      ) : (
        <Link to="/workspace/$workspaceId/settings/plan" params={{ workspaceId: workspace.id }}>
          See the plan
        </Link>
      )}
    </p>
  );
}
