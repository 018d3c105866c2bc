// Copy-paste snippets that call the join endpoint from a landing page: fetch, and a plain HTML form.
import type { Project } from '../api.js';
import { CopyField } from '../ui.js';
import { recentKeys, secretKeyNote } from './Keys.js';

export function InstallTab({ project }: { project: Project }) {
  const url = `${location.origin}/v1/waitlist/${project.slug}/join`;
  const recent = recentKeys.get(project.projectId);
  const key = recent ?? 'wl_YOUR_PUBLISHABLE_KEY';
  const secretNote = secretKeyNote(project.projectId);

  const fetchSnippet = `// Adds one subscriber; resolves with the entry or throws with the server's message.
async function joinWaitlist(email, name) {
  const res = await fetch('${url}', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Authorization: 'Bearer ${key}',
    },
    body: JSON.stringify({ email, name, source: 'landing-page' }),
  });
  const body = await res.json();
  // A refused field (400) carries its own message in error.issues; other refusals only in message.
  if (!res.ok) throw new Error(body.error?.issues?.[0]?.message ?? body.message);
  return body.data;
}`;

  const formSnippet = `<form id="waitlist-form">
  <label>Email <input type="email" name="email" required></label>
  <label>Name <input name="name"></label>
  <button>Join the waitlist</button>
  <p id="waitlist-status" role="status"></p>
</form>
<script>
document.getElementById('waitlist-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.target;
  const status = document.getElementById('waitlist-status');
  const { email, name } = Object.fromEntries(new FormData(form));
  try {
    const res = await fetch('${url}', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ${key}' },
      body: JSON.stringify({ email, name: name || undefined, source: 'waitlist-form' }),
    });
    const body = await res.json();
    const issue = body.error && body.error.issues && body.error.issues[0];
    status.textContent = res.ok ? "You're on the list!" : issue ? issue.message : body.message;
    if (res.ok) form.reset();
  } catch {
    status.textContent = 'Could not reach the waitlist. Please try again.';
  }
});
</script>`;

  const curlSnippet = `curl ${url} \\
  -H 'Authorization: Bearer ${key}' -H 'Content-Type: application/json' \\
  -d '{"email":"ada@example.com","name":"Ada"}'`;

  return (
    <section aria-labelledby="install-title">
      <h2 id="install-title">Install on your landing page</h2>
      {secretNote ? (
        <p class="card warn" role="note">
          {secretNote}
        </p>
      ) : null}
      <p>
        {recent ? (
          <>The snippets use the publishable key you just created. </>
        ) : (
          <>
            Replace <code>{key}</code> with a publishable key from the <a href={`#/projects/${project.projectId}/keys`}>API keys</a> tab.{' '}
          </>
        )}
        The join endpoint accepts calls from any origin, and a publishable key can only add subscribers to this project, so it may sit in
        your page's source. Never put a secret key (<code>wl_sk_…</code>) here: it is refused from a browser.
      </p>
      <div class="card">
        <h3>With fetch</h3>
        <CopyField label="fetch snippet" value={fetchSnippet} multiline />
      </div>
      <div class="card">
        <h3>A plain HTML form</h3>
        <p class="muted">
          A form and a small script; it shows the server's message when a join is refused (an address already on the list, or what is wrong
          with a field).
        </p>
        <CopyField label="HTML form snippet" value={formSnippet} multiline />
      </div>
      <div class="card">
        <h3>From a terminal</h3>
        <CopyField label="curl command" value={curlSnippet} multiline />
      </div>
    </section>
  );
}
