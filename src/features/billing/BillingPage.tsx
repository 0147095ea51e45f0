// Settings › Billing (owners): the saved card, the invoices with their documents, the billing e-mail and address, and
// cancel at period end / resume. Managers and viewers are told billing is the owners' (the server refuses them too).
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import * as z from 'zod/mini';
import { billingQuery, downloadInvoice, planQuery, updateBillingDetails } from '@/api/billing';
import { apiProblem } from '@/api/errors';
import { FormError, TextField } from '@/components/Field';
import { PageFrame, EmptyState } from '@/components/PageFrame';
import { Pending } from '@/components/Pending';
import { useApp } from '@/components/use-app';
import { showToast } from '@/lib/toast';
import { saveFile } from '@/lib/save-file';
import {
  billingDetailsSchema,
  type BillingDetails,
  type BillingResponse,
  type PlanResponse,
} from '@contract/billing';
import { formatMoney } from '@/lib/billing-format';
import { useBillingWorkspace } from './use-billing-workspace';
import { CancelPlanDialog, usePlanCancellation } from './plan-cancellation';
import { formatDate } from '@/lib/date-time';
import './billing.css';

export function BillingPage() {
  const { workspace, workspaceId } = useBillingWorkspace();
  const { api } = useApp();
  const owner = workspace.privilege === 'owner';
  const billing = useQuery({ ...billingQuery(api, workspaceId), enabled: owner });
  const plan = useQuery(planQuery(api, workspaceId));
  if (!owner) {
    return (
      <PageFrame title="Billing" description="Payment method, invoices and billing details.">
        <p className="notice">
          Billing is for the workspace&apos;s owners: ask an owner for invoices or changes.
        </p>
      </PageFrame>
    );
  }
  if (billing.isPending || plan.isPending) return <Pending label="Loading billing…" />;
  if (billing.isError || plan.isError) {
    return (
      <PageFrame title="Billing">
        <FormError message={apiProblem(billing.error ?? plan.error).message} />
        <button
          type="button"
          className="button"
          onClick={() => void Promise.all([billing.refetch(), plan.refetch()])}
        >
          Try again
        </button>
      </PageFrame>
    );
  }
  return (
    <PageFrame title="Billing" description="Payment method, invoices and billing details.">
      <PaymentMethodCard billing={billing.data} plan={plan.data} />
      <Invoices billing={billing.data} plan={plan.data} />
      <DetailsForm
        key={JSON.stringify(billing.data.details)}
        workspaceId={workspaceId}
        billing={billing.data}
      />
    </PageFrame>
  );
}

function PaymentMethodCard({ billing, plan }: { billing: BillingResponse; plan: PlanResponse }) {
  const cancellation = usePlanCancellation(plan);
  const { setConfirming, resume } = cancellation;
  const card = billing.payment_method;
  return (
    <section className="billing-card" aria-labelledby="payment-method">
      <h2 id="payment-method">Payment method</h2>
      {card ? (
        <p className="card-line">
          <span className="card-brand">{card.brand}</span> ending in <strong>{card.last4}</strong>
          <span className="muted">
            {' '}
            · expires {String(card.exp_month).padStart(2, '0')}/{card.exp_year}
          </span>
        </p>
      ) : (
        <p className="muted">No card on file yet: the first checkout saves the card used.</p>
      )}
      {plan.status === 'active' && plan.period_end ? (
        <p className="small">
          The card is charged again on {formatDate(plan.period_end, plan.time_zone)} ({plan.time_zone}).
        </p>
      ) : null}
      <div className="form-actions">
        {plan.status === 'active' && plan.plan.prices ? (
          <button type="button" className="button danger-text" onClick={() => setConfirming(true)}>
            Cancel at period end
          </button>
        ) : null}
        {plan.status === 'canceled' ? (
          <>
            <p className="small">
              Canceled: the plan ends on {plan.period_end ? formatDate(plan.period_end, plan.time_zone) : '—'}
              .
            </p>
            <button
              type="button"
              className="button primary"
              disabled={resume.isPending}
              onClick={() => resume.mutate()}
            >
              {resume.isPending ? 'Resuming…' : 'Resume plan'}
            </button>
          </>
        ) : null}
      </div>
      {resume.error ? <FormError message={apiProblem(resume.error).message} /> : null}
      {plan.period_end ? (
        <CancelPlanDialog cancellation={cancellation}>
          <p>
            Nothing more is charged. The plan stays until {formatDate(plan.period_end, plan.time_zone)}, and
            can be resumed until then.
          </p>
        </CancelPlanDialog>
      ) : null}
    </section>
  );
}

function Invoices({ billing, plan }: { billing: BillingResponse; plan: PlanResponse }) {
  const { api } = useApp();
  const download = useMutation({
    mutationFn: (invoiceId: string) => downloadInvoice(api, plan.workspace_id, invoiceId),
    onSuccess: ({ blob, name }) => saveFile(name, blob),
  });
  return (
    <section className="billing-card" aria-labelledby="invoices">
      <h2 id="invoices">Invoices</h2>
      {billing.invoices.length === 0 ? (
        <EmptyState title="No invoices yet">Each payment adds an invoice here.</EmptyState>
      ) : (
        <table className="table">
          <caption className="visually-hidden">Invoices, newest first; dates in {plan.time_zone}</caption>
          <thead>
            <tr>
              <th scope="col">Number</th>
              <th scope="col">Date</th>
              <th scope="col">Description</th>
              <th scope="col" className="numeric">
                Amount
              </th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="visually-hidden">Document</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {billing.invoices.map((invoice) => (
              <tr key={invoice.id}>
                <td className="nowrap">{invoice.number}</td>
                <td>{formatDate(invoice.issued_at, plan.time_zone)}</td>
                <td>{invoice.description}</td>
                <td className="numeric">{formatMoney(invoice.amount, invoice.currency)}</td>
                <td>
                  <span className={`status-badge invoice-${invoice.status}`}>{invoice.status}</span>
                </td>
                <td>
                  <button
                    type="button"
                    className="button small"
                    disabled={download.isPending && download.variables === invoice.id}
                    onClick={() => download.mutate(invoice.id)}
                    aria-label={`Download invoice ${invoice.number}`}
                  >
                    Download
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {download.error ? <FormError message={apiProblem(download.error).message} /> : null}
    </section>
  );
}

const FIELDS: Array<{ key: keyof BillingDetails; label: string; autoComplete: string; type?: string }> = [
  { key: 'email', label: 'Billing e-mail', autoComplete: 'email', type: 'email' },
  { key: 'name', label: 'Company or name', autoComplete: 'organization' },
  { key: 'address_line1', label: 'Address', autoComplete: 'address-line1' },
  { key: 'address_line2', label: 'Address (line 2)', autoComplete: 'address-line2' },
  { key: 'postal_code', label: 'Postal code', autoComplete: 'postal-code' },
  { key: 'city', label: 'City', autoComplete: 'address-level2' },
  { key: 'country', label: 'Country (two-letter code, e.g. DE)', autoComplete: 'country' },
];

function DetailsForm({ workspaceId, billing }: { workspaceId: string; billing: BillingResponse }) {
  const { api, queryClient } = useApp();
  const [values, setValues] = useState<BillingDetails>(billing.details);
  const [errors, setErrors] = useState<Partial<Record<keyof BillingDetails, string>>>({});
  const save = useMutation({
    mutationFn: (details: BillingDetails) => updateBillingDetails(api, workspaceId, details),
    onSuccess: (next) => {
      queryClient.setQueryData(billingQuery(api, workspaceId).queryKey, next);
      showToast('success', 'Billing details saved.');
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const candidate = { ...values, country: values.country.trim().toUpperCase() };
    const parsed = z.safeParse(billingDetailsSchema, candidate);
    if (!parsed.success) {
      const next: typeof errors = {};
      for (const issue of parsed.error.issues) {
        const key = issue.path[0] as keyof BillingDetails;
        next[key] ??=
          key === 'email'
            ? 'Enter an e-mail address such as billing@example.com, or leave it empty.'
            : key === 'country'
              ? 'Use a two-letter country code such as DE or US, or leave it empty.'
              : 'This is too long.';
      }
      setErrors(next);
      return;
    }
    setErrors({});
    save.mutate(parsed.data);
  };
  return (
    <section className="billing-card" aria-labelledby="billing-details">
      <h2 id="billing-details">Billing details</h2>
      <p className="muted small">Invoices issued from now on carry these.</p>
      <form onSubmit={submit} noValidate className="billing-form">
        {FIELDS.map((field) => (
          <TextField
            key={field.key}
            label={field.label}
            value={values[field.key]}
            type={field.type ?? 'text'}
            autoComplete={field.autoComplete}
            error={errors[field.key]}
            onChange={(value) => setValues((current) => ({ ...current, [field.key]: value }))}
          />
        ))}
        <FormError message={save.error ? apiProblem(save.error).message : null} />
        <div className="form-actions">
          <button type="submit" className="button primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save billing details'}
          </button>
        </div>
      </form>
    </section>
  );
}
