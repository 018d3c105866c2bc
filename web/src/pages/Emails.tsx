// Email of a project: the templates (edit, preview with sample values, back to default) and the email
// log. Calls src/client.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  EMAIL_TEMPLATES,
  type EmailLogItem,
  type EmailTemplateName,
  type RenderedEmail,
  type Templates,
} from '../../../src/contract/events.js';
import type { Page, Project } from '../api.js';
import { eventsClient } from '../events-client.js';
import { attempt, ErrorMsg, fmtDate, Loaded, Notice, Pager, Table } from '../ui.js';

/** Emails per page of the email log. */
const EMAILS_PER_PAGE = 20;
import { EmailSettings } from './SettingsForms.js';

type Draft = { subject: string; text: string; html: string };

export function EmailsTab({ project }: { project: Project }) {
  const pid = project.projectId;
  const client = eventsClient();
  const [templates, setTemplates] = useState<Templates | null>(null);
  const [name, setName] = useState<EmailTemplateName>('welcome');
  // Unsaved edits per template: switching templates keeps them (the selector marks them "unsaved").
  const [drafts, setDrafts] = useState<Partial<Record<EmailTemplateName, Draft>>>({});
  const [preview, setPreview] = useState<RenderedEmail | null>(null);
  const [logPage, setLogPage] = useState(1);
  const [logData, setLogData] = useState<Page<EmailLogItem> | null>(null);
  const log = logData && logData.items;
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');

  useEffect(() => {
    client.getTemplates(pid).then(setTemplates, setError);
  }, [pid]);
  useEffect(() => void client.listEmails(pid, { page: logPage, limit: EMAILS_PER_PAGE }).then(setLogData, setError), [pid, logPage]);
  useEffect(() => setPreview(null), [name]);
  const saved = (t: EmailTemplateName): Draft =>
    templates ? { subject: templates[t].subject, text: templates[t].text, html: templates[t].html } : { subject: '', text: '', html: '' };
  const draft = drafts[name] ?? saved(name);
  const setDraft = (d: Draft) => setDrafts({ ...drafts, [name]: d });
  const unsaved = (t: EmailTemplateName) => {
    const d = drafts[t];
    const s = saved(t);
    return !!d && (d.subject !== s.subject || d.text !== s.text || d.html !== s.html);
  };
  const forget = (t: EmailTemplateName) => setDrafts(({ [t]: _, ...rest }) => rest as typeof drafts);

  const run = (fn: () => Promise<void>) => attempt(setError, fn);
  const doPreview = () => run(async () => setPreview(await client.previewTemplate(pid, { template: name, ...draft })));
  const save = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      setTemplates(await client.updateTemplates(pid, { [name]: draft }));
      forget(name);
      setNotice(`Template “${name}” saved.`);
    });
  };
  const reset = () =>
    run(async () => {
      setTemplates(await client.updateTemplates(pid, { [name]: null }));
      forget(name);
      setNotice(`Template “${name}” is back to the default.`);
    });

  return (
    <section aria-labelledby="emails-title">
      <h2 id="emails-title">Email</h2>
      <p class="muted">
        Emails are sent through the server's SMTP (<code>--smtp-url</code>). Templates use Mustache: <code>{'{{name}}'}</code>,{' '}
        <code>{'{{#name}}…{{/name}}'}</code>.
      </p>
      <EmailSettings pid={pid} sentEmail={!!log?.some((m) => m.status === 'delivered')} />
      <h3>Templates</h3>
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
                  {unsaved(t) ? ' (unsaved edits)' : ''}
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
            {unsaved(name) ? (
              <button type="button" onClick={() => (forget(name), setNotice(`Unsaved edits of “${name}” discarded.`))}>
                Discard edits
              </button>
            ) : null}
          </div>
          {preview ? (
            <section class="card" aria-label="Preview">
              <p>
                <strong>Subject:</strong> <span id="preview-subject">{preview.subject}</span>
              </p>
              <pre id="preview-text">{preview.text}</pre>
              <EmailHtmlPreview html={preview.html} />
            </section>
          ) : null}
        </form>
      )}
      <h3 id="email-log-title">Email log</h3>
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
      {logData ? (
        <Pager label="Email log pages" page={logPage} totalPages={logData.totalPages} total={logData.total} onPage={setLogPage}>
          {logData.total} emails · page {logData.page} of {logData.totalPages}
        </Pager>
      ) : null}
    </section>
  );
}

/**
 * The email's HTML made fit for a preview under the dashboard's CSP, which a srcdoc frame inherits
 * (style-src 'self', img-src 'self' data:). It is rewritten as text, because parsing it in the page
 * (DOMParser, <template>) already reports every inline style to the CSP: style attributes become
 * data-wl-style and <style> blocks are taken out, for the dashboard to apply through the CSSOM (which
 * the CSP allows) once the frame has loaded; event handlers and scripts are dropped (they could not run
 * in the sandbox anyway); remote images are not loaded (the CSP would block them) and are counted.
 */
function prepareEmailHtml(html: string): { doc: string; css: string; remoteImages: number } {
  const css: string[] = [];
  let remoteImages = 0;
  let out = '';
  let i = 0;
  const attr = /\s*([^\s"'>/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]*))?/y;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      out += html.slice(i);
      break;
    }
    out += html.slice(i, lt);
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    const m = /^<([a-zA-Z][^\s/>]*)/.exec(html.slice(lt, lt + 100));
    if (!m) {
      const gt = html.indexOf('>', lt);
      const closing = /^<\//.test(html.slice(lt, lt + 2));
      if (closing && gt >= 0) out += html.slice(lt, gt + 1);
      else if (!closing) out += '&lt;';
      i = closing ? (gt < 0 ? html.length : gt + 1) : lt + 1;
      continue;
    }
    const tag = m[1]!.toLowerCase();
    let j = lt + m[0].length;
    const kept: string[] = [];
    for (;;) {
      attr.lastIndex = j;
      const a = attr.exec(html);
      if (!a || a[0].length === 0) break;
      j = attr.lastIndex;
      const name = a[1]!.toLowerCase();
      const raw = a[2] ?? '';
      const value = raw.replace(/^["']|["']$/g, '');
      if (name.startsWith('on') || /^\s*javascript:/i.test(value)) continue;
      if (name === 'style') kept.push(`data-wl-style=${raw || '""'}`);
      else if ((tag === 'img' && (name === 'src' || name === 'srcset')) || name === 'background') {
        if (/^\s*data:/i.test(value)) kept.push(a[0].trim());
        else if (name !== 'srcset') {
          if (tag === 'img') remoteImages++;
          kept.push(`data-wl-${name}=${raw || '""'}`);
        }
      } else kept.push(a[0].trim());
    }
    const gt = html.indexOf('>', j);
    const end = gt < 0 ? html.length : gt + 1;
    if (tag === 'style' || tag === 'script') {
      const close = html.toLowerCase().indexOf(`</${tag}`, end);
      const body = html.slice(end, close < 0 ? html.length : close);
      if (tag === 'style') css.push(body);
      const closeEnd = close < 0 ? html.length : html.indexOf('>', close) + 1 || html.length;
      i = closeEnd;
      continue;
    }
    if (tag === 'link' || tag === 'base' || tag === 'meta') {
      i = end;
      continue;
    }
    out += `<${m[1]}${kept.map((k) => ` ${k}`).join('')}${html.slice(j, end).trim().startsWith('/') ? ' />' : '>'}`;
    i = end;
  }
  return { doc: out, css: css.join('\n'), remoteImages };
}

/**
 * The HTML part in a sandboxed srcdoc frame: no scripts run in it (no allow-scripts), forms and popups
 * are off. allow-same-origin only lets the dashboard apply the email's styles to it after loading.
 */
function EmailHtmlPreview({ html }: { html: string }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const prepared = useMemo(() => prepareEmailHtml(html), [html]);
  const applyStyles = () => {
    const doc = frame.current?.contentDocument;
    const win = doc?.defaultView as (Window & typeof globalThis) | null | undefined;
    if (!doc || !win) return;
    for (const img of doc.querySelectorAll('img[data-wl-src]')) {
      img.setAttribute('title', `Image not loaded in the preview: ${img.getAttribute('data-wl-src')}`);
      if (!img.getAttribute('alt')) img.setAttribute('alt', '[image]');
    }
    for (const el of doc.querySelectorAll<HTMLElement>('[data-wl-style]')) {
      el.style.cssText = el.getAttribute('data-wl-style') ?? '';
      el.removeAttribute('data-wl-style');
    }
    if (prepared.css) {
      const sheet = new win.CSSStyleSheet();
      sheet.replaceSync(prepared.css);
      doc.adoptedStyleSheets = [sheet];
    }
  };
  return (
    <>
      <iframe
        ref={frame}
        class="email-preview"
        title="HTML preview"
        sandbox="allow-same-origin"
        srcdoc={prepared.doc}
        onLoad={applyStyles}
      />
      {prepared.remoteImages ? (
        <p class="hint">
          {prepared.remoteImages} remote image{prepared.remoteImages === 1 ? ' is' : 's are'} not loaded in the preview (the dashboard loads
          nothing from other sites); email clients load them as usual.
        </p>
      ) : null}
    </>
  );
}
