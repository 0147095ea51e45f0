// Cancel at period end and resume, as the plan page and the billing page both offer them: the mutations, the
// confirmation's state, and the confirmation dialog (each page words what the cancellation means in its place).
import { useState, type ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import { cancelPlan, planQuery, resumePlan } from '@/api/billing';
import { apiProblem } from '@/api/errors';
import { ConfirmDialog } from '@/components/ConfirmDialog';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import type { PlanResponse } from '@contract/billing';

export function usePlanCancellation(plan: PlanResponse) {
  const { api, queryClient } = useApp();
  const [confirming, setConfirming] = useState(false);
  const after = (next: PlanResponse, message: string) => {
    setConfirming(false);
    queryClient.setQueryData(planQuery(api, plan.workspace_id).queryKey, next);
    void queryClient.invalidateQueries({ queryKey: ['workspaces', plan.workspace_id] });
    showToast('success', message);
  };
  const cancel = useMutation({
    mutationFn: () => cancelPlan(api, plan.workspace_id),
    onSuccess: (next) => after(next, 'The plan is canceled at the end of its period.'),
  });
  const resume = useMutation({
    mutationFn: () => resumePlan(api, plan.workspace_id),
    onSuccess: (next) => after(next, 'The plan is resumed.'),
  });
  return { confirming, setConfirming, cancel, resume };
}

/** The confirmation of a cancellation, open while `confirming`; its text is the page's. */
export function CancelPlanDialog({
  cancellation: { confirming, setConfirming, cancel },
  children,
}: {
  cancellation: ReturnType<typeof usePlanCancellation>;
  children: ReactNode;
}) {
  if (!confirming) return null;
  return (
    <ConfirmDialog
      title="Cancel the plan?"
      confirmLabel="Cancel at period end"
      pendingLabel="Canceling…"
      pending={cancel.isPending}
      destructive
      error={cancel.error ? apiProblem(cancel.error).message : null}
      onConfirm={() => cancel.mutate()}
      onCancel={() => setConfirming(false)}
    >
      {children}
    </ConfirmDialog>
  );
}
