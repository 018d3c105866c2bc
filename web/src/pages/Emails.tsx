// Email of a project: the templates (edit, preview with sample values, back to default) and the email
// log. Calls src/client.
import { useEffect, useState } from 'preact/hooks';
import {
  EMAIL_TEMPLATES,
  type EmailLogItem,
  type EmailTemplateName,
  type RenderedEmail,
  type Templates,
} from '../../../src/contract/events.js';
import type { Project } from '../api.js';
import { eventsClient } from '../events-client.js';
import { attempt, ErrorMsg, fmtDate, Loaded, Notice, Table } from '../ui.js';

export function EmailsTab({ project }: { project: Project }) {
  const pid = project.projectId;
  const client = eventsClient();
  const [templates, setTemplates] = useState<Templates | null>(null);
  const [name, setName] = useState<EmailTemplateName>('welcome');
  const [draft, setDraft] = useState({ subject: '', text: '', html: '' });
  const [preview, setPreview] = useState<RenderedEmail | null>(null);
  const [log, setLog] = useState<EmailLogItem[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');

  useEffect(() => {
    client.getTemplates(pid).then(setTemplates, setError);
    client.listEmails(pid, { limit: 50 }).then((p) => setLog(p.items), setError);
  }, [pid]);
  useEffect(() => {
    if (templates) setDraft({ subject: templates[name].subject, text: templates[name].text, html: templates[name].html });
    setPreview(null);
  }, [templates, name]);

  const run = (fn: () => Promise<void>) => attempt(setError, fn);
  const doPreview = () => run(async () => setPreview(await client.previewTemplate(pid, { template: name, ...draft })));
  const save = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      setTemplates(await client.updateTemplates(pid, { [name]: draft }));
      setNotice(`Template “${name}” saved.`);
    });
  };
  const reset = () =>
    run(async () => {
      setTemplates(await client.updateTemplates(pid, { [name]: null }));
      setNotice(`Template “${name}” is back to the default.`);
    });

  return (
    <section aria-labelledby="emails-title">
      <h2 id="emails-title">Email</h2>
      <p class="muted">
        Emails are sent through the server's SMTP (<code>--smtp-url</code>). Templates use Mustache: <code>{'{{name}}'}</code>,{' '}
        <code>{'{{#name}}…{{/name}}'}</code>.
      </p>
      <ErrorMsg error={error} />
      <Notice text={notice} />
      {templates === null ? (
        <p>Loading…</p>
      ) : (
        <form class="card" onSubmit={save}>
          <div class="field">
            <label for="tpl-name">Template</label>
            <select id="tpl-name" value={name} onChange={(e) => setName(e.currentTarget.value as EmailTemplateName)}>
              {EMAIL_TEMPLATES.map((t) => (
                <option key={t} value={t}>
                  {t}
                  {templates[t].custom ? ' (changed)' : ''}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="tpl-subject">Subject</label>
            <input
              id="tpl-subject"
              maxLength={300}
              value={draft.subject}
              onInput={(e) => setDraft({ ...draft, subject: e.currentTarget.value })}
            />
          </div>
          <div class="field">
            <label for="tpl-text">Plain text</label>
            <textarea id="tpl-text" rows={6} value={draft.text} onInput={(e) => setDraft({ ...draft, text: e.currentTarget.value })} />
          </div>
          <div class="field">
            <label for="tpl-html">HTML</label>
            <textarea id="tpl-html" rows={6} value={draft.html} onInput={(e) => setDraft({ ...draft, html: e.currentTarget.value })} />
          </div>
          <div class="row wrap">
            <button type="button" onClick={() => void doPreview()}>
              Preview
            </button>
            <button type="submit" class="primary">
              Save
            </button>
            <button type="button" onClick={() => void reset()} disabled={!templates[name].custom}>
              Back to default
            </button>
          </div>
          {preview ? (
            <section class="card" aria-label="Preview">
              <p>
                <strong>Subject:</strong> <span id="preview-subject">{preview.subject}</span>
              </p>
              <pre id="preview-text">{preview.text}</pre>
              {/* The HTML part in a sandboxed frame: no scripts, no access to the dashboard. */}
              <iframe class="email-preview" title="HTML preview" sandbox="" srcdoc={preview.html} />
            </section>
          ) : null}
        </form>
      )}
      <h3>Email log</h3>
      <Loaded items={log} empty="No emails yet.">
        {(rows) => (
          <Table
            caption="Emails"
            rows={rows}
            rowKey={(m) => m.emailId}
            columns={[
              { label: 'To', cell: (m) => m.to },
              { label: 'Template', cell: (m) => m.template },
              { label: 'Status', cell: (m) => m.status },
              { label: 'Attempts', cell: (m) => m.attempts },
              { label: 'Last error', cell: (m) => m.lastError ?? '' },
              { label: 'Created', cell: (m) => fmtDate(m.createdAt) },
            ]}
          />
        )}
      </Loaded>
    </section>
  );
}
