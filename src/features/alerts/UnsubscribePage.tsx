// Where an alert e-mail's unsubscribe link lands (/unsubscribe#token=…), or a digest e-mail's (/unsubscribe#digest=…),
// or the confirmation link of a digest's outside address (/unsubscribe#confirm=…), signed in or not: the token is read from the fragment (never sent to a server by the browser, so it stays out of
// logs), taken out of the address, and posted; the page then says which rule was muted or which digest stopped, or why
// the link did not work.
import { useEffect, useState } from 'react';
import { Link } from '@tanstack/react-router';
import { useMutation } from '@tanstack/react-query';
import { unsubscribe } from '@/api/alerts';
import { confirmDigest, unsubscribeDigest } from '@/api/digests';
import { apiProblem } from '@/api/errors';
import { FormError } from '@/components/Field';
import { PageFrame } from '@/components/PageFrame';
import { Pending } from '@/components/Pending';
import { useApp } from '@/components/use-app';

const tokenOf = (hash: string) => new URLSearchParams(hash.replace(/^#/, '')).get('token');

const digestTokenOf = (hash: string) => new URLSearchParams(hash.replace(/^#/, '')).get('digest');

const confirmTokenOf = (hash: string) => new URLSearchParams(hash.replace(/^#/, '')).get('confirm');

export function UnsubscribePage() {
  const [digestToken] = useState(() => digestTokenOf(window.location.hash));
  const [confirmToken] = useState(() => confirmTokenOf(window.location.hash));
  if (confirmToken) return <DigestConfirm token={confirmToken} />;
  return digestToken ? <DigestUnsubscribe token={digestToken} /> : <AlertUnsubscribe />;
}

function DigestConfirm({ token }: { token: string }) {
  const { api } = useApp();
  const confirm = useMutation({ mutationFn: (value: string) => confirmDigest(api, value) });
  const { mutate } = confirm;
  useEffect(() => {
    window.history.replaceState(window.history.state, '', window.location.pathname);
    mutate(token);
  }, [token, mutate]);
  return (
    <main className="centered-screen">
      <PageFrame title="Confirm a digest">
        {confirm.isPending || confirm.isIdle ? (
          <Pending label="Confirming…" />
        ) : confirm.isError ? (
          <FormError message={apiProblem(confirm.error).message} />
        ) : confirm.data.already_confirmed ? (
          <p role="status">
            {confirm.data.address} was already confirmed for the digests of {confirm.data.workspace_name}:
            nothing changed.
          </p>
        ) : (
          <p role="status">
            Confirmed: {confirm.data.address} will receive the digests of {confirm.data.workspace_name}. Each
            one has a link to stop it.
          </p>
        )}
        <p>
          <Link to="/">Go to Murmur</Link>
        </p>
      </PageFrame>
    </main>
  );
}

function DigestUnsubscribe({ token }: { token: string }) {
  const { api } = useApp();
  const stop = useMutation({ mutationFn: (value: string) => unsubscribeDigest(api, value) });
  const { mutate } = stop;
  useEffect(() => {
    window.history.replaceState(window.history.state, '', window.location.pathname);
    mutate(token);
  }, [token, mutate]);
  return (
    <main className="centered-screen">
      <PageFrame title="Unsubscribe from a digest">
        {stop.isPending || stop.isIdle ? (
          <Pending label="Unsubscribing…" />
        ) : stop.isError ? (
          <FormError message={apiProblem(stop.error).message} />
        ) : (
          <p role="status">
            You will no longer receive the {stop.data.frequency} digest of “{stop.data.saved_query_name}” from{' '}
            {stop.data.workspace_name}.
          </p>
        )}
        <p>
          <Link to="/">Go to Murmur</Link>
        </p>
      </PageFrame>
    </main>
  );
}

function AlertUnsubscribe() {
  const { api } = useApp();
  const [token] = useState(() => tokenOf(window.location.hash));
  const mute = useMutation({ mutationFn: (value: string) => unsubscribe(api, value) });
  const { mutate } = mute;

  useEffect(() => {
    if (!token) return;
    window.history.replaceState(window.history.state, '', window.location.pathname);
    mutate(token);
  }, [token, mutate]);

  return (
    <main className="centered-screen">
      <PageFrame title="Unsubscribe from an alert">
        {!token ? (
          <FormError message="This link has no unsubscribe token. Open the link from the e-mail again." />
        ) : mute.isPending || mute.isIdle ? (
          <Pending label="Unsubscribing…" />
        ) : mute.isError ? (
          <FormError message={apiProblem(mute.error).message} />
        ) : (
          <p role="status">
            You will no longer be told of “{mute.data.rule_summary}” on “{mute.data.saved_query_name}” in{' '}
            {mute.data.workspace_name}, in the app or by e-mail. You can unmute it on the workspace&apos;s
            Alerts page.
          </p>
        )}
        <p>
          <Link to="/">Go to Murmur</Link>
        </p>
      </PageFrame>
    </main>
  );
}
