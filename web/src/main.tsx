// The dashboard shell: who is signed in, the header, and the hash routes (#/login, #/projects/…).
import { type JSX, render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, setUnauthorizedHandler, type User } from './api.js';
import { AuthPage } from './pages/Auth.js';
import { ProjectPage } from './pages/Project.js';
import { ProjectsPage } from './pages/Projects.js';
import { ErrorMsg, go, useHashRoute } from './ui.js';
import './style.css';

function App() {
  const [user, setUser] = useState<User | null | undefined>(undefined);
  // A brand-new server (no account yet) opens on "Create the first account", not on "Log in".
  const [firstAccount, setFirstAccount] = useState(false);
  // Whether this server takes new accounts now (GET /auth/status): the login page offers sign-up only then.
  const [signupOpen, setSignupOpen] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const route = useHashRoute();
  // A project page opened while signed out (a deep link): logging in goes to it instead of the project
  // list. Not the page a dead session left (someone else may log in next).
  const wanted = useRef<string | null>(null);
  const remember = () => {
    if (route[0] === 'projects') wanted.current = `/${route.map(encodeURIComponent).join('/')}`;
  };
  const routeKey = route.join('/');
  useEffect(() => {
    if (user === null) remember();
  }, [routeKey]);

  useEffect(() => {
    // Any 401 from any tab (every page uses the one client of api.ts): back to the login page, with no
    // error left over from the dead session.
    setUnauthorizedHandler(() => (setError(null), setUser(null), refreshStatus()));
    // /auth/status first (public, always 200): a signed-out visit asks nothing that answers 401, which
    // the browser would log as a console error.
    const signedOut = (status: { hasUsers: boolean; signupOpen: boolean } | null) => {
      setFirstAccount(status?.hasUsers === false);
      setSignupOpen(status?.signupOpen ?? false);
      remember();
      setUser(null);
    };
    api.authStatus().then(
      (status) => (status.signedIn ? api.me().then(setUser, () => signedOut(status)) : signedOut(status)),
      () => api.me().then(setUser, () => signedOut(null)),
    );
  }, []);

  // Move focus to the new page's heading so keyboard and screen-reader users land on it (not on a
  // project's tab change: focus stays on the tab). Pages that load first focus it once loaded.
  const pageKey = route.slice(0, 2).join('/');
  useEffect(() => {
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [pageKey, user?.userId]);

  const refreshStatus = () =>
    void api.authStatus().then(
      (st) => (setFirstAccount(!st.hasUsers), setSignupOpen(st.signupOpen)),
      () => {},
    );

  // Errors belong to the page they came from: a new page starts without the last one's.
  useEffect(() => setError(null), [pageKey]);

  const logout = async () => {
    setError(null);
    try {
      await api.logout();
    } catch (e) {
      // A session that already ended on the server (expired, logged out elsewhere) is logged out here
      // too; anything else (the server unreachable) is shown, and the user stays signed in.
      if (!(e instanceof ApiError && e.status === 401)) return setError(e);
    }
    setUser(null);
    refreshStatus();
    go('/login');
  };

  if (user === undefined) return <p class="loading">Loading…</p>;

  let page: JSX.Element;
  if (!user) {
    const mode = route[0] === 'signup' || (firstAccount && route[0] !== 'login') ? 'signup' : 'login';
    page = (
      <AuthPage
        mode={mode}
        first={firstAccount}
        signupOpen={signupOpen}
        onSignedIn={(u) => {
          setFirstAccount(false);
          setError(null);
          setUser(u);
          go(wanted.current ?? '/projects');
          wanted.current = null;
        }}
      />
    );
  } else if (route[0] === 'projects' && route[1]) {
    page = <ProjectPage projectId={route[1]} tab={route[2] ?? 'entries'} sub={route[3]} />;
  } else {
    page = <ProjectsPage />;
  }

  return (
    <>
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link; the click moves focus without touching the hash route */}
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href={user ? '#/projects' : '#/login'}>
          Waitlist
        </a>
        {user ? (
          <div class="row">
            <span class="muted who">{user.email}</span>
            <button type="button" onClick={logout}>
              Log out
            </button>
          </div>
        ) : null}
      </header>
      <main id="main" tabIndex={-1}>
        <ErrorMsg error={error} />
        {page}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
