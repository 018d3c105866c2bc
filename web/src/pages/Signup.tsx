// The sign-up surface of a project: hosted page settings with a live preview, the custom field editor,
// the captcha, copy-paste snippets (widget, plain form, hosted page link) and an import dialog. API calls
// go through src/client (WaitlistClient) on the dashboard's own origin and session cookie.
import { useEffect, useState } from 'preact/hooks';
import type { ImportResult } from '../../../src/client/index.js';
import type { FieldDefinition, SurfaceSettings } from '../../../src/contract/settings-surface.js';
import { api, type Project } from '../api.js';
import { CopyField, ErrorMsg, Notice } from '../ui.js';
import { recentKeys, secretKeyNote } from './Keys.js';
import { JoinProtection } from './SettingsForms.js';

// The shared client (api.ts): a 401 sends the user back to the login page.
const client = api;
const TYPES = ['text', 'number', 'select', 'checkbox'] as const;

type Draft = Pick<SurfaceSettings, 'hostedPage' | 'pageTitle' | 'pageDescription' | 'redirectUrl' | 'captcha' | 'captchaDifficulty'> & {
  fields: (FieldDefinition & { optionsText: string })[];
};

function toDraft(s: SurfaceSettings): Draft {
  return { ...s, fields: s.fields.map((f) => ({ ...f, optionsText: (f.options ?? []).join(', ') })) };
}

function Preview({ project, d }: { project: Project; d: Draft }) {
  return (
    <section class="card preview" aria-label="Preview of the hosted page">
      <h3>{d.pageTitle || project.name}</h3>
      {d.pageDescription ? <p class="muted">{d.pageDescription}</p> : null}
      <div class="stack">
        <span class="label">Email *</span>
        <input disabled placeholder="you@example.com" aria-label="Email (preview)" />
        <span class="label">Name</span>
        <input disabled aria-label="Name (preview)" />
        {d.fields.map((f) => (
          <div key={f.key} class="stack">
            <span class="label">
              {f.label || f.key}
              {f.required ? ' *' : ''}
            </span>
            {f.type === 'select' ? (
              <select disabled aria-label={`${f.label} (preview)`}>
                <option>Choose…</option>
              </select>
            ) : f.type === 'checkbox' ? (
              <input type="checkbox" disabled aria-label={`${f.label} (preview)`} />
            ) : (
              <input disabled aria-label={`${f.label} (preview)`} />
            )}
          </div>
        ))}
        <button type="button" class="primary" disabled>
          Join the waitlist
        </button>
      </div>
    </section>
  );
}

function FieldEditor({ fields, onChange }: { fields: Draft['fields']; onChange: (f: Draft['fields']) => void }) {
  const set = (i: number, patch: Partial<Draft['fields'][number]>) => onChange(fields.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  return (
    <fieldset class="stack">
      <legend>Custom fields ({fields.length}/20)</legend>
      {fields.map((f, i) => (
        <div class="row wrap field-row" key={i}>
          <label>
            Key <input value={f.key} onInput={(e) => set(i, { key: e.currentTarget.value })} required />
          </label>
          <label>
            Label <input value={f.label} onInput={(e) => set(i, { label: e.currentTarget.value })} required />
          </label>
          <label>
            Type{' '}
            <select value={f.type} onChange={(e) => set(i, { type: e.currentTarget.value as FieldDefinition['type'] })}>
              {TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </label>
          {f.type === 'select' ? (
            <label>
              Options (comma-separated) <input value={f.optionsText} onInput={(e) => set(i, { optionsText: e.currentTarget.value })} />
            </label>
          ) : null}
          <label class="row">
            <input type="checkbox" checked={f.required} onChange={(e) => set(i, { required: e.currentTarget.checked })} /> Required
          </label>
          <button
            type="button"
            class="danger small"
            onClick={() => onChange(fields.filter((_, j) => j !== i))}
            aria-label={`Remove field ${f.key || i + 1}`}
          >
            Remove
          </button>
        </div>
      ))}
      <div>
        <button
          type="button"
          disabled={fields.length >= 20}
          onClick={() => onChange([...fields, { key: '', label: '', type: 'text', required: false, optionsText: '' }])}
        >
          Add a field
        </button>
      </div>
    </fieldset>
  );
}

function ImportDialog({ project }: { project: Project }) {
  const [file, setFile] = useState<File | null>(null);
  const [dryRun, setDryRun] = useState(true);
  const [dateFormat, setDateFormat] = useState<'auto' | 'dmy' | 'mdy'>('auto');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ImportResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const run = async (e: Event) => {
    e.preventDefault();
    if (!file) return;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const format = /\.(ndjson|jsonl)$/i.test(file.name) ? 'ndjson' : 'csv';
      setResult(await client.importEntries(project.projectId, file, { format, dryRun, dateFormat }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card stack" onSubmit={run} aria-labelledby="import-title">
      <h2 id="import-title">Import subscribers</h2>
      <p class="muted">
        A CSV (this server's export, or a hosted tool's: an email column plus others) or NDJSON file. Duplicates are skipped.
      </p>
      <label>
        File{' '}
        <input type="file" accept=".csv,.ndjson,.jsonl,text/csv" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} required />
      </label>
      <label>
        Slash dates read as{' '}
        <select value={dateFormat} onChange={(e) => setDateFormat(e.currentTarget.value as 'auto')}>
          <option value="auto">settled by the file (auto)</option>
          <option value="dmy">DD/MM/YYYY</option>
          <option value="mdy">MM/DD/YYYY</option>
        </select>
      </label>
      <label class="row">
        <input type="checkbox" checked={dryRun} onChange={(e) => setDryRun(e.currentTarget.checked)} /> Dry run (check only, write nothing)
      </label>
      <div>
        <button type="submit" class="primary" disabled={!file || busy}>
          {busy ? 'Importing…' : dryRun ? 'Check the file' : 'Import'}
        </button>
      </div>
      <ErrorMsg error={error} />
      {result ? (
        <div role="status">
          <p>
            {result.dryRun ? 'Would import' : 'Imported'} <strong>{result.imported}</strong>; {result.duplicates} duplicates skipped;{' '}
            {result.invalidCount} bad rows
            {result.dateFormat ? ` (slash dates read as ${result.dateFormat === 'dmy' ? 'DD/MM/YYYY' : 'MM/DD/YYYY'})` : ''}.
          </p>
          {result.invalid.length ? (
            <ul class="import-errors">
              {result.invalid.map((i) => (
                <li key={i.line}>
                  Line {i.line}: {i.message}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </form>
  );
}

export function SignupTab({ project }: { project: Project }) {
  const [draft, setDraft] = useState<Draft | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  useEffect(() => {
    client.getSettings(project.projectId).then((s) => setDraft(toDraft(s)), setError);
  }, [project.projectId]);
  if (!draft) return <ErrorMsg error={error} />;
  const patch = (p: Partial<Draft>) => (setNotice(''), setDraft({ ...draft, ...p }));
  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const fields = draft.fields.map(({ optionsText, ...f }) => ({
        ...f,
        ...(f.type === 'select'
          ? {
              options: optionsText
                .split(',')
                .map((o) => o.trim())
                .filter(Boolean),
            }
          : { options: undefined }),
      }));
      const { hostedPage, pageTitle, pageDescription, redirectUrl, captcha, captchaDifficulty } = draft;
      const saved = await client.updateSettings(project.projectId, {
        hostedPage,
        pageTitle: pageTitle ?? '',
        pageDescription: pageDescription ?? '',
        redirectUrl: redirectUrl ?? '',
        captcha,
        captchaDifficulty,
        fields,
      } as never);
      setDraft(toDraft(saved));
      setNotice('Saved');
    } catch (err) {
      setError(err);
    }
  };
  const origin = location.origin;
  const key = recentKeys.get(project.projectId) ?? 'wl_YOUR_PUBLISHABLE_KEY';
  return (
    <div class="stack">
      <div class="grid2">
        <form class="card stack" onSubmit={save} aria-labelledby="page-title">
          <h2 id="page-title">Sign-up page</h2>
          <label class="row">
            <input type="checkbox" checked={draft.hostedPage} onChange={(e) => patch({ hostedPage: e.currentTarget.checked })} /> Hosted
            page at{' '}
            <a href={`/w/${project.slug}`} target="_blank" rel="noopener">
              /w/{project.slug}
            </a>
          </label>
          <label>
            Title{' '}
            <input
              value={draft.pageTitle ?? ''}
              placeholder={project.name}
              onInput={(e) => patch({ pageTitle: e.currentTarget.value })}
              maxLength={120}
            />
          </label>
          <label>
            Description{' '}
            <textarea
              value={draft.pageDescription ?? ''}
              onInput={(e) => patch({ pageDescription: e.currentTarget.value })}
              maxLength={1000}
              rows={3}
            />
          </label>
          <label>
            After a plain form post, go to (optional){' '}
            <input
              type="url"
              value={draft.redirectUrl ?? ''}
              placeholder="https://example.com/thanks"
              onInput={(e) => patch({ redirectUrl: e.currentTarget.value })}
            />
          </label>
          <label>
            Bot protection{' '}
            <select value={draft.captcha} onChange={(e) => patch({ captcha: e.currentTarget.value as 'off' | 'pow' })}>
              <option value="off">off</option>
              <option value="pow">proof of work (invisible)</option>
            </select>
          </label>
          {draft.captcha === 'pow' ? (
            <label>
              Difficulty{' '}
              <input
                type="number"
                min={1000}
                max={1000000}
                step={1000}
                value={draft.captchaDifficulty}
                onInput={(e) => patch({ captchaDifficulty: Number(e.currentTarget.value) })}
              />
            </label>
          ) : null}
          <FieldEditor fields={draft.fields} onChange={(fields) => patch({ fields })} />
          <ErrorMsg error={error} />
          <Notice text={notice} />
          <div>
            <button type="submit" class="primary">
              Save
            </button>
          </div>
        </form>
        <Preview project={project} d={draft} />
      </div>
      <JoinProtection pid={project.projectId} />
      <section class="card stack" aria-labelledby="embed-title">
        <h2 id="embed-title">Put it on your site</h2>
        {secretKeyNote(project.projectId) ? (
          <p class="card warn" role="note">
            {secretKeyNote(project.projectId)}
          </p>
        ) : null}
        <CopyField
          label="Widget (one script tag)"
          value={`<script src="${origin}/widget.js" data-slug="${project.slug}" data-key="${key}" async></script>`}
        />
        <CopyField
          label="Plain HTML form (no script)"
          multiline
          value={`<form method="post" action="${origin}/v1/waitlist/${project.slug}/join">\n  <input type="hidden" name="key" value="${key}">\n  <label>Email <input type="email" name="email" required></label>\n  <button>Join the waitlist</button>\n</form>`}
        />
        <CopyField label="Hosted page link" value={`${origin}/w/${project.slug}`} />
      </section>
      <ImportDialog project={project} />
    </div>
  );
}
