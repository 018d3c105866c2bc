// Projects: list, create (with a live slug preview), rename, delete after confirmation.
import { useEffect, useState } from 'preact/hooks';
import { SLUG_RE, slugify } from '../../../src/contract/slug.js';
import { api, type Project } from '../api.js';
import { ConfirmDialog, ErrorMsg, fmtDate, go, InlineRename, Notice } from '../ui.js';

export function ProjectsPage() {
  const [items, setItems] = useState<Project[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  const [deleting, setDeleting] = useState<Project | null>(null);

  const load = () => api.listProjects({ limit: 100 }).then((p) => setItems(p.items), setError);
  useEffect(() => void load(), []);

  const rename = async (p: Project, name: string) => {
    const updated = await api.updateProject(p.projectId, { name });
    setItems((list) => list && list.map((x) => (x.projectId === p.projectId ? updated : x)));
    setNotice(`Renamed to “${updated.name}”.`);
  };

  return (
    <>
      <h1 tabIndex={-1}>Projects</h1>
      <p class="muted">Each project is one waitlist, with its own API keys and subscribers.</p>
      <ErrorMsg error={error} />
      <Notice text={notice} />
      <CreateProject onCreated={(p) => go(`/projects/${p.projectId}/keys`)} />
      <section aria-labelledby="projects-list">
        <h2 id="projects-list">Your projects</h2>
        {items === null ? (
          <p>Loading…</p>
        ) : items.length === 0 ? (
          <p class="muted">No projects yet: create one above.</p>
        ) : (
          <ul class="cards">
            {items.map((p) => (
              <li key={p.projectId} class="card">
                <h3>
                  <a href={`#/projects/${p.projectId}`}>{p.name}</a>
                </h3>
                <dl class="meta">
                  <dt>Slug</dt>
                  <dd>
                    <code>{p.slug}</code>
                  </dd>
                  <dt>Created</dt>
                  <dd>{fmtDate(p.createdAt)}</dd>
                </dl>
                <div class="row">
                  <InlineRename buttonOnly label={`Rename project ${p.name}`} value={p.name} onSave={(n) => rename(p, n)} />
                  <button type="button" class="danger small" onClick={() => setDeleting(p)}>
                    Delete
                  </button>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
      {deleting ? (
        <ConfirmDialog
          title={`Delete “${deleting.name}”?`}
          confirmLabel="Delete project"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await api.deleteProject(deleting.projectId);
            setNotice(`Deleted “${deleting.name}”.`);
            await load();
          }}
        >
          <p>
            Its keys stop working at once and joins to <code>{deleting.slug}</code> answer 404. Entries are kept; a server operator can
            restore the project with <code>waitlist admin project restore {deleting.projectId}</code>.
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

function CreateProject({ onCreated }: { onCreated: (p: Project) => void }) {
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const derived = slugify(name);
  const shown = slug.trim() || derived;
  const slugOk = !slug.trim() || (SLUG_RE.test(slug.trim()) && slug.trim().length >= 3 && slug.trim().length <= 48);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onCreated(await api.createProject({ name: name.trim(), ...(slug.trim() ? { slug: slug.trim() } : {}) }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="create-project">
      <h2 id="create-project">New project</h2>
      <form onSubmit={submit} class="grid2">
        <div class="field">
          <label for="project-name">Name</label>
          <input id="project-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="project-slug">Slug (optional)</label>
          <input
            id="project-slug"
            maxLength={48}
            placeholder={derived || 'my-app'}
            aria-describedby="slug-preview"
            aria-invalid={!slugOk}
            value={slug}
            onInput={(e) => setSlug(e.currentTarget.value)}
          />
        </div>
        <p id="slug-preview" class="hint full">
          {shown ? (
            <>
              Join URL: <code>/v1/waitlist/{shown}/join</code>
              {!slug.trim() ? ' (a number is added if the slug is taken)' : ''}
              {!slugOk ? ' — a slug is 3–48 characters of a–z, 0–9 and single hyphens' : ''}
            </>
          ) : (
            'The slug is derived from the name unless you choose one. It cannot be changed later.'
          )}
        </p>
        <ErrorMsg error={error} />
        <div class="full">
          <button type="submit" class="primary" disabled={busy || !slugOk}>
            Create project
          </button>
        </div>
      </form>
    </section>
  );
}
