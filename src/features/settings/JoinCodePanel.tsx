// The workspace's join code: people type it on the workspace-creation page to join as viewers. Rotating it makes the
// old code stop working at once (members who joined with it stay), and unlocks joining when too many wrong codes near
// it were tried (the server locks it then; server/invites/guessing.ts).
import { useState } from 'react';
import { useMutation, useSuspenseQuery } from '@tanstack/react-query';
import { joinCodeQuery, rotateJoinCode } from '@/api/workspaces';
import { apiProblem } from '@/api/errors';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { CopyField } from '@/components/CopyField';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';

export function JoinCodePanel({ workspaceId }: { workspaceId: string }) {
  const { api, queryClient } = useApp();
  const joinCode = useSuspenseQuery(joinCodeQuery(api, workspaceId)).data;
  const [confirming, setConfirming] = useState(false);

  const rotate = useMutation({
    mutationFn: () => rotateJoinCode(api, workspaceId),
    onSuccess: (fresh) => {
      queryClient.setQueryData(joinCodeQuery(api, workspaceId).queryKey, fresh);
      setConfirming(false);
      showToast('success', 'New join code created');
    },
  });

  return (
    <section className="settings-section" aria-labelledby="join-code-title">
      <h2 id="join-code-title">Join code</h2>
      <p className="muted small">
        People who sign in can join this workspace as viewers with this code. Rotate it if it reached the
        wrong people.
      </p>
      {joinCode.locked ? (
        <p className="form-error" role="alert">
          This code was locked after too many wrong attempts: nobody can join with it. Rotate it to let people
          join again.
        </p>
      ) : null}
      <div className="join-code">
        <CopyField label="Join code" value={joinCode.code} />
        <button
          type="button"
          className="button"
          onClick={() => {
            rotate.reset();
            setConfirming(true);
          }}
        >
          Rotate code
        </button>
      </div>
      {confirming ? (
        <ConfirmDialog
          title="Rotate the join code?"
          confirmLabel="Rotate"
          pendingLabel="Rotating…"
          destructive
          pending={rotate.isPending}
          error={rotate.isError ? apiProblem(rotate.error).message : null}
          onConfirm={() => rotate.mutate()}
          onCancel={() => setConfirming(false)}
        >
          The current code stops working at once. People who already joined stay members.
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
