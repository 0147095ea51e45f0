import { Link } from '@tanstack/react-router';
import { PageFrame } from '../../components/PageFrame';

/** Members without access (not a member, or a non-owner of an expired plan) land here. */
export function InvalidWorkspacePage() {
  return (
    <PageFrame
      title="This workspace is not available"
      description="You are not a member of this workspace, or its plan has expired. Ask its owner for access."
    >
      <Link to="/login" search={{}} className="button">
        Go to your workspaces
      </Link>
    </PageFrame>
  );
}
