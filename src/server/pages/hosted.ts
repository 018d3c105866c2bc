// The hosted sign-up page /w/:slug: a plain HTML form that works with JavaScript off (it posts to
// /w/:slug and the server answers with this page again: the form with its errors, or the result). With
// JavaScript on, one small inline script solves the proof-of-work challenge in a Web Worker while the
// person types, then lets the form submit as usual.
import type { ServerResponse } from 'node:http';
import type { FieldDefinition } from '../../contract/settings-surface.js';
import type { Issue } from '../../contract/types.js';
import { featureSettings } from '../../core/settings.js';
import type { ProjectRow } from '../../db/store.js';
import { html, raw, type Raw, sendPage } from './html.js';
import { solveSync } from '../../shared/solver.js';

/** What the person typed, echoed back when the form is shown again. */
export type FormValues = Record<string, string>;

export interface HostedView {
  values?: FormValues;
  /** A banner error (not tied to one field). */
  error?: string;
  issues?: Issue[];
  ref?: string;
  status?: number;
  /** The join's result: the page then shows it instead of the form. */
  joined?: Record<string, unknown>;
}

const MESSAGES: Record<string, string> = {
  validation_failed: 'Please check the highlighted fields.',
  email_taken: 'This email is already on the waitlist.',
  rate_limited: 'Too many attempts from your network. Please wait a minute and try again.',
  unauthorized: 'This form is not set up correctly (its key was refused).',
  forbidden: 'This waitlist does not accept sign-ups from here.',
  not_found: 'This waitlist does not exist any more.',
  service_unavailable: 'The waitlist is busy. Please try again in a moment.',
};
/** A person-readable sentence for an error code carried in `?error=`. */
export const messageFor = (code: string) => MESSAGES[code] ?? 'Something went wrong. Please try again.';
/**
 * The sentence for `?error=CODE` on a page reached by a form's redirect: the redirect carries the code
 * only, so a validation failure cannot point at a field here.
 */
export const redirectedMessageFor = (code: string) =>
  code === 'validation_failed'
    ? 'Some of the details you sent were not accepted. Please check them (the email address especially) and try again.'
    : messageFor(code);
/** The bot check's issue for a person: the API's message names the challenge route, for developers. */
const altchaText = (message: string) =>
  message.startsWith('Solve the proof-of-work')
    ? 'it runs in your browser and needs JavaScript. Please turn JavaScript on and try again.'
    : 'it did not pass (it may have expired). Please try again.';

const CSS = `.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
.check{display:flex;gap:.5rem;align-items:flex-start;font-weight:600;margin:.75rem 0 .25rem}.check input{margin-top:.35rem;width:1.1rem;height:1.1rem}
.field-error{color:var(--err);margin:.25rem 0 0;font-size:.95rem}[aria-invalid=true]{border-color:var(--err)!important}
.req{color:var(--err)}.ok{border-color:var(--accent)}button[disabled]{opacity:.7}`;

function fieldControl(def: FieldDefinition, value: string | undefined, issue: Issue | undefined): Raw {
  // Its own id space: a custom field keyed `email`, `name` or `hp` must not share the built-in inputs' ids.
  const id = `fld-${def.key}`;
  const name = `fields.${def.key}`;
  const err = issue ? html`<p class="field-error" id="${id}-err">${issue.message}</p>` : '';
  const aria = raw(
    `${issue ? ` aria-invalid="true" aria-describedby="${id}-err"` : ''}${def.required ? ' required aria-required="true"' : ''}`,
  );
  const star = def.required ? html` <span class="req" aria-hidden="true">*</span>` : '';
  switch (def.type) {
    case 'checkbox':
      return html`<label class="check" for="${id}"><input type="checkbox" id="${id}" name="${name}" value="on"${
        value === 'on' || value === 'true' ? raw(' checked') : ''
      }${aria}><span>${def.label}${star}</span></label>${err}`;
    case 'select':
      return html`<label for="${id}">${def.label}${star}</label><select id="${id}" name="${name}"${aria}><option value="">Choose…</option>${(
        def.options ?? []
      ).map((o) => html`<option${o === value ? raw(' selected') : ''}>${o}</option>`)}</select>${err}`;
    case 'number':
      return html`<label for="${id}">${def.label}${star}</label><input type="number" step="any" inputmode="decimal" id="${id}" name="${name}" value="${value ?? ''}"${aria}>${err}`;
    default:
      return html`<label for="${id}">${def.label}${star}</label><input type="text" id="${id}" name="${name}" value="${value ?? ''}" maxlength="500"${aria}>${err}`;
  }
}

function standardControl(key: 'email' | 'name', label: string, value: string | undefined, issue: Issue | undefined): Raw {
  const err = issue ? html`<p class="field-error" id="f-${key}-err">${issue.message}</p>` : '';
  const aria = raw(issue ? ` aria-invalid="true" aria-describedby="f-${key}-err"` : '');
  return key === 'email'
    ? html`<label for="f-email">${label} <span class="req" aria-hidden="true">*</span></label><input type="email" id="f-email" name="email" required aria-required="true" autocomplete="email" maxlength="254" value="${value ?? ''}"${aria}>${err}`
    : html`<label for="f-name">${label}</label><input type="text" id="f-name" name="name" autocomplete="name" maxlength="200" value="${value ?? ''}"${aria}>${err}`;
}

function joinedCard(slug: string, data: Record<string, unknown>): Raw {
  const position = typeof data.position === 'number' ? data.position : null;
  const url = typeof data.referralUrl === 'string' ? data.referralUrl : null;
  const pending = data.status === 'pending';
  // The subscriber's private status page (their place, and leaving): the join answers its token once.
  const status = typeof data.statusToken === 'string' ? `/w/${slug}/status?token=${encodeURIComponent(data.statusToken)}` : null;
  return html`<section class="card ok" role="status" tabindex="-1" id="result">
<h2>${pending ? 'Almost there: check your inbox' : 'You are on the list!'}</h2>
<p>${
    pending
      ? html`We sent a confirmation link to <strong>${String(data.email)}</strong>.`
      : typeof data.email === 'string'
        ? html`<strong>${data.email}</strong> has joined the waitlist.`
        : 'You have joined the waitlist.'
  }</p>
${position !== null ? html`<p>Your position</p><p class="big">#${position}</p>` : ''}
${url && !pending ? html`<p>Share your link to move up:</p><p class="code"><a href="${url}">${url}</a></p>` : ''}
${status ? html`<p class="muted">Bookmark <a href="${status}">your status page</a> to check your place or leave the list later (the link is private).</p>` : ''}
</section>`;
}

// Focuses the result or the error summary (so screen readers announce it), and when the project asks
// for proof of work, solves the ALTCHA v1 challenge (find n ≤ maxnumber with SHA-256(salt + n) =
// challenge) in a Web Worker made from a blob while the person types (main thread if workers are
// refused), then lets the form submit as usual. The solver is src/shared/solver.ts, inlined.
const SOLVER = solveSync.toString();
const script = (
  slug: string,
) => `(()=>{const f=document.getElementById("join"),a=f&&f.elements.namedItem("altcha"),r=document.getElementById("result")||document.getElementById("errors");
if(r)r.focus();if(!a)return;
const s=${SOLVER};
const run=c=>new Promise((res,rej)=>{const w=new Worker(URL.createObjectURL(new Blob(["onmessage=e=>postMessage(("+s+")(e.data))"],{type:"text/javascript"})));w.onmessage=e=>{w.terminate();res(e.data)};w.onerror=rej;w.postMessage(c)}).catch(()=>s(c));
const done=fetch("/w/${slug}/challenge").then(r=>r.json()).then(async j=>{const c=j.data,n=await run(c);a.value=btoa(JSON.stringify({algorithm:c.algorithm,challenge:c.challenge,number:n,salt:c.salt,signature:c.signature}))});
f.addEventListener("submit",e=>{e.preventDefault();if(!f.reportValidity())return;const b=f.querySelector("button");b.disabled=true;b.textContent="Joining…";done.catch(()=>{}).then(()=>f.submit())})})();`;

/** The page itself. */
export function renderHosted(
  project: ProjectRow,
  view: HostedView = {},
): { title: string; body: Raw; css: string; script?: string; status: number } {
  const s = featureSettings(project);
  const title = s.pageTitle ?? project.name;
  const issues = view.issues ?? [];
  const issueOf = (path: string) => issues.find((i) => i.path === path);
  const v = view.values ?? {};
  const head = html`<h1>${title}</h1>${s.pageDescription ? html`<p class="muted">${s.pageDescription}</p>` : ''}`;
  if (view.joined) {
    return {
      title,
      body: html`${head}${joinedCard(project.slug, view.joined)}`,
      css: CSS,
      script: script(project.slug),
      status: view.status ?? 200,
    };
  }
  const stray = issues.filter((i) => i.path !== 'email' && i.path !== 'name' && !i.path.startsWith('fields.'));
  const banner =
    view.error || issues.length
      ? html`<div class="card error" role="alert" id="errors" tabindex="-1"><p>${view.error ?? messageFor('validation_failed')}</p>${
          stray.length
            ? html`<ul>${stray.map((i) => html`<li>${i.path === 'altcha' ? `Bot check: ${altchaText(i.message)}` : i.message}</li>`)}</ul>`
            : ''
        }</div>`
      : '';
  const honeypot = project.honeypotField
    ? html`<div class="hp" aria-hidden="true"><label for="f-hp">Leave this empty</label><input type="text" id="f-hp" name="${project.honeypotField}" tabindex="-1" autocomplete="off"></div>`
    : '';
  const pow = s.captcha === 'pow';
  const body = html`${head}${banner}
<form id="join" method="post" action="/w/${project.slug}" class="card">
${standardControl('email', 'Email', v.email, issueOf('email'))}
${standardControl('name', 'Name', v.name, issueOf('name'))}
${s.fields.map((d) => fieldControl(d, v[`fields.${d.key}`], issueOf(`fields.${d.key}`)))}
${view.ref ? html`<input type="hidden" name="ref" value="${view.ref}">` : ''}${honeypot}
${pow ? html`<input type="hidden" name="altcha" value=""><noscript><p class="muted">This form checks that you are not a bot with a small computation in your browser: please turn JavaScript on to join.</p></noscript>` : ''}
<button type="submit">Join the waitlist</button>
</form>`;
  return { title, body, css: CSS, script: script(project.slug), status: view.status ?? 200 };
}

/** Sends the hosted page. */
export function sendHosted(res: ServerResponse, project: ProjectRow, view: HostedView = {}): void {
  const page = renderHosted(project, view);
  sendPage(res, page);
}
