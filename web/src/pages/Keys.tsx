// API keys of a project: create (the full key is shown once), list with prefix and last use, rename, revoke.
import { useEffect, useState } from 'preact/hooks';
import { api, type ApiKey, type CreatedApiKey, type Project } from '../api.js';
import { attempt, ConfirmDialog, ErrorMsg, fmtDate, InlineRename, Loaded, Notice, ShownOnce, Table } from '../ui.js';

/**
 * The latest *publishable* key created in this tab since it was opened (memory only), so the Install and
 * Sign-up page snippets can use it. A secret key never goes here: it must not be in a web page (a
 * browser join with it is refused with 403).
 */
export const recentKeys = new Map<string, string>();
/** Projects whose latest key created in this tab is a secret one, so the snippets can say why they do not hold it. */
export const recentSecret = new Set<string>();

/** Why the snippets do not hold the key just created, when it was a secret one; '' otherwise. */
export function secretKeyNote(projectId: string): string {
  if (!recentSecret.has(projectId)) return '';
  return recentKeys.has(projectId)
    ? 'The key you just created is a secret key: it must never be in a web page, so the snippets use your latest publishable key instead.'
    : 'The key you just created is a secret key: it must never be in a web page (a browser join with it is refused with 403), so the snippets keep a placeholder. Create a publishable key for your page.';
}

export function KeysTab({ project }: { project: Project }) {
  const pid = project.projectId;
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [kind, setKind] = useState<'publishable' | 'secret'>('publishable');
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

  const load = () => api.listKeys(pid, { limit: 100 }).then((p) => setKeys(p.items), setError);
  useEffect(() => void load(), [pid]);

  const create = (e: Event) => {
    e.preventDefault();
    void attempt(setError, async () => {
      const k = await api.createKey(pid, { name: name.trim(), kind });
      setCreated(k);
      if (k.kind === 'secret') recentSecret.add(pid);
      else {
        recentKeys.set(pid, k.key);
        recentSecret.delete(pid);
      }
      setName('');
      await load();
    });
  };

  const rename = async (k: ApiKey, n: string) => {
    const updated = await api.updateKey(pid, k.keyId, { name: n });
    setKeys((list) => list && list.map((x) => (x.keyId === k.keyId ? updated : x)));
    setNotice(`Key renamed to “${updated.name}”.`);
  };

  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p class="muted">
        A <strong>publishable</strong> key lets a landing page add subscribers to this project, and nothing else, so it can sit in public
        page source. A <strong>secret</strong> key also redeems invites: keep it on your server, never in a web page. Only a key's prefix is
        stored in readable form.
      </p>
      {created ? (
        <ShownOnce
          id="new-key-title"
          title={`New key “${created.name}”`}
          label="Full API key"
          value={created.key}
          onDone={() => setCreated(null)}
        >
          <strong>Copy it now: this is the only time the full key is shown.</strong> The server keeps only a hash; if you lose it, create
          another key and revoke this one.
          {created.kind === 'secret' ? (
            <> This is a secret key: use it only from your server, never in a web page (the Install snippets do not use it).</>
          ) : null}
        </ShownOnce>
      ) : null}
      <form class="row wrap card" onSubmit={create}>
        <div class="field grow">
          <label for="key-name">New key name</label>
          <input
            id="key-name"
            required
            maxLength={100}
            placeholder="landing page"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="key-kind">Kind</label>
          <select id="key-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as 'publishable' | 'secret')}>
            <option value="publishable">publishable (web pages: join only)</option>
            <option value="secret">secret (your server: also redeems invites)</option>
          </select>
        </div>
        <button type="submit" class="primary">
          Create key
        </button>
      </form>
      <ErrorMsg error={error} />
      <Notice text={notice} />
      <Loaded items={keys} empty="No keys yet. Create one to accept joins.">
        {(rows) => (
          <Table
            caption="API keys"
            rows={rows}
            rowKey={(k) => k.keyId}
            columns={[
              {
                label: 'Name',
                class: 'wrap',
                cell: (k) => <InlineRename label={`Rename key ${k.name}`} value={k.name} onSave={(n) => rename(k, n)} />,
              },
              { label: 'Kind', cell: (k) => k.kind },
              { label: 'Prefix', cell: (k) => <code>{k.prefix}…</code> },
              { label: 'Created', cell: (k) => fmtDate(k.createdAt) },
              { label: 'Last used', cell: (k) => fmtDate(k.lastUsedAt) },
            ]}
            actions={(k) => (
              <button type="button" class="danger small" onClick={() => setRevoking(k)} aria-label={`Revoke key ${k.name}`}>
                Revoke
              </button>
            )}
          />
        )}
      </Loaded>
      {revoking ? (
        <ConfirmDialog
          title={`Revoke “${revoking.name}”?`}
          confirmLabel="Revoke key"
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await api.deleteKey(pid, revoking.keyId);
            if (created?.keyId === revoking.keyId) setCreated(null);
            if (recentKeys.get(pid)?.startsWith(revoking.prefix)) recentKeys.delete(pid);
            setNotice(`Key “${revoking.name}” revoked.`);
            await load();
          }}
        >
          <p>
            Joins sent with <code>{revoking.prefix}…</code> fail with 401 from the very next request. This cannot be undone.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
