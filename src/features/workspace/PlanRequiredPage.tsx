import { Link, useParams } from '@tanstack/react-router';
import { PageFrame } from '../../components/PageFrame';

/** An owner whose plan has expired lands here (spec §4 step 4). */
export function PlanRequiredPage() {
  const { workspaceId } = useParams({ from: '/_authed/workspace/$workspaceId' });
  return (
    <PageFrame title="Your plan has expired" description="Renew the plan to open this workspace again.">
      <Link to="/workspace/$workspaceId/checkout" params={{ workspaceId }} className="button primary">
        Renew plan
      </Link>
    </PageFrame>
  );
}
