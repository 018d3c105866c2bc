// GET /docs: the OpenAPI document as one self-contained HTML page, rendered here on the server (no
// script, no CDN, no viewer package: nothing from elsewhere, works offline and with JavaScript off).
import { escapeHtml, html, raw, type Raw } from '../pages/html.js';

// biome-ignore lint/suspicious/noExplicitAny: the page walks the document built by document.ts, whose shape it knows
type Json = Record<string, any>;

/** The page's own styles (on top of the shell's). */
export const DOCS_CSS = `
main{max-width:64rem}h2{margin:2rem 0 .5rem;font-size:1.3rem;border-bottom:1px solid var(--line)}
details.op{border:1px solid var(--line);border-radius:.5rem;margin:.5rem 0;background:var(--card)}
details.op>summary{cursor:pointer;padding:.5rem .75rem;display:flex;gap:.75rem;align-items:baseline;flex-wrap:wrap}
details.op>div{padding:0 .75rem .75rem}.m{font:700 .8rem ui-monospace,monospace;text-transform:uppercase;min-width:4.2rem}
.get{color:#2b8a3e}.post{color:#1864ab}.put{color:#e67700}.delete{color:#c92a2a}.options{color:var(--muted)}
pre{background:var(--bg);border:1px solid var(--line);border-radius:.4rem;padding:.6rem;overflow:auto;font-size:.8rem;max-height:24rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}td,th{text-align:left;padding:.25rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
h3{font-size:1rem;margin:1rem 0 .25rem}`;

const json = (v: unknown) => JSON.stringify(v, null, 2);
/** The document's Markdown, as far as it uses any: `code` spans. Everything else is escaped text. */
const md = (s: unknown) => raw(escapeHtml(String(s ?? '')).replace(/`([^`]+)`/g, '<code>$1</code>'));

const AUTH_TEXT: Record<string, string> = {
  session: 'session cookie',
  apiKey: 'API key (Bearer)',
  secretKey: 'secret API key (Bearer, from a server)',
};

function operation(method: string, path: string, op: Json): Raw {
  const params: Json[] = op.parameters ?? [];
  const body = op.requestBody?.content?.['application/json']?.schema;
  const auth = op.security?.[0] ? Object.keys(op.security[0])[0] : 'none';
  return html`<details class="op" id="${op.operationId}"><summary><span class="m ${method}">${method}</span><code>${path}</code>
<span class="muted">${md(op.summary)}</span></summary><div>
${op.description ? html`<p>${md(op.description)}</p>` : ''}
<p class="muted">Auth: ${(auth && AUTH_TEXT[auth]) ?? 'none'}</p>
${
  params.length
    ? html`<h3>Parameters</h3><table><tr><th>Name</th><th>In</th><th>Schema</th><th>Description</th></tr>${params.map(
        (p) =>
          html`<tr><td><code>${p.name}</code></td><td>${p.in}</td><td><code>${JSON.stringify(p.schema)}</code></td><td>${md(p.description)}</td></tr>`,
      )}</table>`
    : ''
}
${body ? html`<h3>Request body (application/json)</h3><pre>${json(body)}</pre>` : ''}
<h3>Responses</h3>${Object.entries(op.responses as Json).map(([status, r]) => {
    const content = Object.entries((r as Json).content ?? {}) as [string, Json][];
    return html`<p><strong>${status}</strong> ${md((r as Json).description)}</p>${content.map(([type, c]) =>
      c.schema?.$ref === '#/components/schemas/Error' ? '' : html`<p class="muted">${type}</p><pre>${json(c.schema)}</pre>`,
    )}`;
  })}
</div></details>`;
}

/** The page body for a document built by document.ts. */
export function docsBody(doc: Json): Raw {
  const byTag = new Map<string, Raw[]>();
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const tag = (op as Json).tags?.[0] ?? 'Other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), operation(method, path, op as Json)]);
    }
  }
  const schemas = Object.entries((doc.components?.schemas ?? {}) as Json);
  return html`<h1>${doc.info.title} <span class="muted">${doc.info.version}</span></h1>
<p>${md(doc.info.description)}</p>
<p>Machine-readable: <a href="/openapi.json"><code>/openapi.json</code></a> (OpenAPI ${doc.openapi}).</p>
${[...byTag].map(([tag, ops]) => html`<h2>${tag}</h2>${ops}`)}
<h2>Schemas</h2>${schemas.map(([name, s]) => html`<details class="op" id="schema-${name}"><summary><code>${name}</code></summary><div><pre>${json(s)}</pre></div></details>`)}`;
}
