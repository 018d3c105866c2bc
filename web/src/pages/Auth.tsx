// Log in, or sign up (the first account bootstraps the server; later ones need --open-signup).
import { useEffect, useState } from 'preact/hooks';
import { api, type User } from '../api.js';
import { attempt, ErrorMsg } from '../ui.js';

export function AuthPage({
  mode,
  first = false,
  signupOpen = false,
  onSignedIn,
}: {
  mode: 'login' | 'signup';
  first?: boolean;
  /** The server takes new accounts (GET /auth/status `signupOpen`). */
  signupOpen?: boolean;
  onSignedIn: (u: User) => void;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const signup = mode === 'signup';
  // Following the link between Log in and sign-up starts without the other form's error.
  useEffect(() => setError(null), [mode]);

  const submit = (e: Event) => {
    e.preventDefault();
    void attempt(
      setError,
      async () => {
        const user = signup
          ? await api.signup({ email, password, ...(name.trim() ? { name: name.trim() } : {}) })
          : await api.login({ email, password });
        onSignedIn(user);
      },
      setBusy,
    );
  };

  return (
    <section class="card narrow">
      <h1 tabIndex={-1}>{signup ? (first ? 'Create the first account' : 'Create your account') : 'Log in'}</h1>
      {signup ? (
        <p class="muted">
          {first ? 'This server has no account yet: the first one sets it up. ' : 'The first account on a new server sets it up. '}
          After that, sign-up is closed unless the server runs with <code>--open-signup</code>.
        </p>
      ) : null}
      <form onSubmit={submit} class="stack">
        {signup ? (
          <div class="field">
            <label for="auth-name">Name (optional)</label>
            <input id="auth-name" autoComplete="name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </div>
        ) : null}
        <div class="field">
          <label for="auth-email">Email</label>
          <input
            id="auth-email"
            type="email"
            required
            autoComplete="email"
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="auth-password">Password</label>
          <input
            id="auth-password"
            type="password"
            required
            minLength={signup ? 8 : undefined}
            autoComplete={signup ? 'new-password' : 'current-password'}
            aria-describedby={signup ? 'auth-password-hint' : undefined}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          {signup ? (
            <span id="auth-password-hint" class="hint">
              At least 8 characters.
            </span>
          ) : null}
        </div>
        <ErrorMsg error={error} />
        <button type="submit" class="primary" disabled={busy}>
          {signup ? 'Create account' : 'Log in'}
        </button>
      </form>
      <p>
        {signup && first ? null : signup ? (
          <>
            Already have an account? <a href="#/login">Log in</a>
          </>
        ) : signupOpen ? (
          <>
            No account yet? <a href="#/signup">Create an account</a>
          </>
        ) : (
          <span class="muted">
            No account? Ask the server's operator: sign-up is closed here (<code>waitlist admin user add</code> adds one).
          </span>
        )}
      </p>
    </section>
  );
}
