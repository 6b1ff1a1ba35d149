import { useState } from 'preact/hooks';
import { ApiError, signIn } from '../api';
import { ErrorBox } from '../components';

/** Sign in with the operator token (`<data_dir>/operator-token`); it becomes an HttpOnly cookie. */
export function LoginPage({ reason, onSignedIn }: { reason: string | null; onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      await signIn(token.trim());
      onSignedIn();
    } catch (failure) {
      setError(failure instanceof ApiError ? `${failure.code}: ${failure.message}` : String(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <h1>OpenLegion</h1>
      {reason ? <p class="notice">{reason}</p> : null}
      <form onSubmit={submit}>
        <label for="token">Operator token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="current-password"
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
          required
        />
        <p class="hint">
          It is in <code>&lt;data_dir&gt;/operator-token</code> on the host (mode 0600).
        </p>
        <button type="submit" disabled={busy || token.trim() === ''}>
          Sign in
        </button>
      </form>
      <ErrorBox error={error} />
    </main>
  );
}
