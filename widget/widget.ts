// The embeddable widget, served at /widget.js (built by scripts/build-widget.mjs; ≤ 8 KB gzipped):
//   <script src="https://waitlist.example.com/widget.js" data-slug="my-app" data-key="wl_pk_…" async></script>
// renders a sign-up form in a shadow root (the host page's CSS cannot reach it) right after the script
// tag, or inside `data-target` (a CSS selector). `data-form="false"` renders nothing and only exposes
// window.Waitlist.join({...}) for a site's own form. Proof of work (captcha "pow") is solved in a Web
// Worker while the person types. Styles go in a constructable stylesheet (adoptedStyleSheets), which a
// host page's CSP `style-src` does not govern; a <style> element only where that is unsupported.

import { solveSync } from '../src/shared/solver.js';

interface Field {
  key: string;
  label: string;
  type: 'text' | 'number' | 'select' | 'checkbox';
  required: boolean;
  options?: string[];
}
interface FormConfig {
  title: string;
  description: string | null;
  fields: Field[];
  captcha: 'off' | 'pow';
}
interface Challenge {
  algorithm: string;
  challenge: string;
  maxnumber: number;
  salt: string;
  signature: string;
}
interface Issue {
  path: string;
  message: string;
}
export interface JoinInput {
  email: string;
  name?: string;
  source?: string;
  metadata?: Record<string, unknown>;
  fields?: Record<string, unknown>;
  ref?: string;
  slug?: string;
  key?: string;
}

/** A failed join: the envelope's code, message and field issues. */
class WaitlistError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly issues: Issue[] = [],
    readonly status = 0,
  ) {
    super(message);
  }
}

const script = document.currentScript as HTMLScriptElement | null;
const data = script?.dataset ?? {};
const base = script ? new URL(script.src).origin : location.origin;

async function call<T>(method: string, path: string, key: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(base + path, { method, headers, body: body ? JSON.stringify(body) : undefined, credentials: 'omit' });
  } catch {
    // A refused CORS request (an origin the project's allowedOrigins leaves out) looks to the page
    // exactly like a network failure: the wording covers both, and the site owner gets the hint.
    console.warn(
      `Waitlist: ${method} ${base}${path} failed. Either the network is down or the waitlist refused this site's origin (${location.origin}): add it to the project's allowedOrigins setting.`,
    );
    throw new WaitlistError(
      'network',
      'Could not reach the waitlist. Check your connection and try again; if it keeps failing, this site may not be allowed to use the waitlist yet.',
    );
  }
  const env = await res.json().catch(() => null);
  if (!env || env.status !== 'success') {
    throw new WaitlistError(
      env?.error?.code ?? `http_${res.status}`,
      env?.message ?? 'Something went wrong.',
      env?.error?.issues ?? [],
      res.status,
    );
  }
  return env.data as T;
}

function inWorker(c: Challenge): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const url = URL.createObjectURL(new Blob([`onmessage=e=>postMessage((${solveSync})(e.data))`], { type: 'text/javascript' }));
    const done = () => URL.revokeObjectURL(url);
    try {
      const w = new Worker(url);
      w.onmessage = (e) => {
        w.terminate();
        done();
        resolve(e.data as number);
      };
      w.onerror = (e) => {
        done();
        reject(e);
      };
      w.postMessage(c);
    } catch (e) {
      done();
      throw e;
    }
  }).catch(() => solveSync(c)); // a page whose CSP refuses blob workers: solve here
}
async function solve(slug: string, key: string): Promise<string> {
  const c = await call<Challenge>('GET', `/v1/waitlist/${slug}/challenge`, key);
  const number = await inWorker(c);
  return btoa(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number, salt: c.salt, signature: c.signature }));
}

/** The project's public form (title, fields, captcha), fetched once per slug and key for the page's life. */
const forms = new Map<string, Promise<FormConfig>>();
function formOf(slug: string, key: string): Promise<FormConfig> {
  const k = `${slug} ${key}`;
  let p = forms.get(k);
  if (!p) {
    p = call<FormConfig>('GET', `/v1/waitlist/${slug}/form`, key);
    forms.set(k, p);
    p.catch(() => forms.delete(k)); // a failure is not remembered: the next call asks again
  }
  return p;
}

const pageRef = () => new URLSearchParams(location.search).get('ref') ?? undefined;

/**
 * Joins the waitlist. With captcha "pow" (the project's form says so) the proof of work is solved
 * before the join, so a sign-up costs one join request; a join refused for a missing `altcha` (the
 * setting changed since) is solved and sent again, and the form is asked for again next time.
 */
async function join(input: JoinInput, altcha?: Promise<string>): Promise<Record<string, unknown>> {
  const slug = input.slug ?? data.slug;
  const key = input.key ?? data.key;
  if (!slug || !key)
    throw new WaitlistError('validation_failed', 'Waitlist.join needs a slug and a key (data-slug and data-key on the script tag)');
  const { slug: _s, key: _k, ...rest } = input;
  const body: Record<string, unknown> = { source: data.source ?? 'widget', ...rest };
  const ref = input.ref ?? pageRef();
  if (ref) body.ref = ref;
  if (altcha) body.altcha = await altcha.catch(() => undefined);
  else if (
    await formOf(slug, key).then(
      (f) => f.captcha === 'pow',
      () => false,
    )
  )
    body.altcha = await solve(slug, key);
  for (let attempt = 0; ; attempt++) {
    try {
      return await call('POST', `/v1/waitlist/${slug}/join`, key, body);
    } catch (e) {
      const issues = e instanceof WaitlistError ? e.issues : [];
      if (attempt > 2) throw e;
      if (issues.some((i) => i.path === 'altcha')) {
        forms.delete(`${slug} ${key}`);
        body.altcha = await solve(slug, key);
      } else if (issues.length === 1 && issues[0]!.path === 'ref')
        delete body.ref; // a server without referrals
      else throw e;
    }
  }
}

// Sizes in px, not rem: rem follows the host page's root font size (`html{font-size:62.5%}` is common),
// and the form must look the same on every site. The root .r sets the font; the host page's rules
// reach nothing inside the shadow root.
const CSS = `:host{all:initial;display:block;max-width:448px}
.r{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1f;background:#fff;color-scheme:light;padding:16px;border-radius:9.6px;text-align:left;letter-spacing:normal;text-transform:none;visibility:visible}
*{box-sizing:border-box;margin:0}form,.f{display:grid;gap:9.6px}.f{gap:4px}label{display:grid;gap:4px;font-weight:600;font-size:15.2px}
.c{display:flex;gap:8px;align-items:center}input,select,button{font:inherit;color:inherit}input,select{font-weight:400}
input:not([type=checkbox]),select{width:100%;padding:8.8px 10.4px;border:1px solid #c4c8cf;border-radius:7.2px;background:#fff}
button{padding:9.6px 16px;border:0;border-radius:7.2px;background:#3b5bdb;color:#fff;font-weight:600;cursor:pointer}
button:disabled{opacity:.7;cursor:wait}:focus-visible{outline:3px solid #3b5bdb;outline-offset:2px}
.e{color:#c92a2a;font-weight:400;font-size:14.4px}[aria-invalid=true]{border-color:#c92a2a!important}
.ok{padding:16px;border:1px solid #3b5bdb;border-radius:9.6px;display:grid;gap:6.4px}.n{font-size:32px;font-weight:700}`;

function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Record<string, string | boolean> = {}, ...kids: (Node | string)[]) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === false) continue;
    if (k === 'text') el.textContent = String(v);
    else el.setAttribute(k, v === true ? '' : v);
  }
  el.append(...kids);
  return el;
}

let sheet: CSSStyleSheet | undefined;
/** The form's CSS for a shadow root: adopted (no CSP `style-src` applies), else a <style> element. */
function styleFor(root: ShadowRoot): Node[] {
  try {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
    }
    root.adoptedStyleSheets = [sheet];
    return [];
  } catch {
    return [h('style', { text: CSS })];
  }
}

let seq = 0;
/** Renders the form into `host` (its own shadow root). */
async function render(host: Element, slug: string, key: string) {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  const id = `w${++seq}`;
  // Inherited properties (font, colour) would flow in from the host element, which the page may style
  // with !important: everything sits in a wrapper that sets them again.
  const wrap = h('div', { class: 'r' });
  root.replaceChildren(...styleFor(root), wrap);
  const cfg = await formOf(slug, key);
  let altcha = cfg.captcha === 'pow' ? solve(slug, key) : undefined;
  const status = h('p', { role: 'status', 'aria-live': 'polite', class: 'e' });
  const controls: Record<string, HTMLInputElement | HTMLSelectElement> = {};
  const errs: Record<string, HTMLElement> = {};
  // The error sits beside the label, not in it: it is read once, as the control's description
  // (aria-describedby), not also as part of its name. The required `*` is hidden from the name too
  // (the control's `required` says it).
  const row = (path: string, label: string, control: HTMLInputElement | HTMLSelectElement, check = false, star = false) => {
    control.id = `${id}-${path}`;
    control.name = path;
    const err = h('span', { class: 'e', id: `${id}-${path}-e` });
    control.setAttribute('aria-describedby', err.id);
    controls[path] = control;
    errs[path] = err;
    const text = h('span', {}, label, ...(star ? [h('span', { 'aria-hidden': 'true', text: ' *' })] : []));
    return h('div', { class: 'f' }, check ? h('label', { class: 'c' }, control, text) : h('label', {}, text, control), err);
  };
  const form = h(
    'form',
    { novalidate: true, 'aria-label': cfg.title },
    row('email', 'Email', h('input', { type: 'email', required: true, autocomplete: 'email' }), false, true),
    row('name', 'Name', h('input', { type: 'text', autocomplete: 'name' })),
    ...cfg.fields.map((f) => {
      const { label, required } = f;
      const path = `fields.${f.key}`;
      if (f.type === 'select') {
        return row(
          path,
          label,
          h('select', { required }, h('option', { value: '', text: 'Choose…' }), ...(f.options ?? []).map((o) => h('option', { text: o }))),
          false,
          required,
        );
      }
      if (f.type === 'checkbox') return row(path, label, h('input', { type: 'checkbox', required }), true, required);
      return row(
        path,
        label,
        h('input', { type: f.type === 'number' ? 'number' : 'text', required, step: f.type === 'number' ? 'any' : false }),
        false,
        required,
      );
    }),
    h('button', { type: 'submit', text: data.button ?? 'Join the waitlist' }),
    status,
  );
  wrap.append(form);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const button = form.querySelector('button')!;
    for (const [p, c] of Object.entries(controls)) {
      c.removeAttribute('aria-invalid');
      errs[p]!.textContent = '';
    }
    status.textContent = '';
    const fields: Record<string, unknown> = {};
    for (const f of cfg.fields) {
      const c = controls[`fields.${f.key}`] as HTMLInputElement;
      if (f.type === 'checkbox') fields[f.key] = c.checked;
      else if (c.value !== '') fields[f.key] = f.type === 'number' ? Number(c.value) : c.value;
    }
    const name = controls.name!.value.trim();
    button.disabled = true;
    try {
      const r = await join({ email: controls.email!.value, ...(name ? { name } : {}), ...(cfg.fields.length ? { fields } : {}) }, altcha);
      const box = h(
        'div',
        { class: 'ok', role: 'status', tabindex: '-1' },
        h('strong', { text: r.status === 'pending' ? 'Check your inbox to confirm.' : 'You are on the list!' }),
      );
      if (typeof r.position === 'number')
        box.append(h('span', { text: 'Your position' }), h('span', { class: 'n', text: `#${r.position}` }));
      // A pending entry (double opt-in) has no place yet: it is asked to check its inbox, nothing more.
      if (typeof r.referralUrl === 'string' && r.status !== 'pending') {
        const link = h('input', { readonly: true, value: r.referralUrl, 'aria-label': 'Your referral link' });
        box.append(h('span', { text: 'Share your link to move up:' }), link);
      }
      form.replaceWith(box);
      box.focus();
    } catch (e) {
      const err = e instanceof WaitlistError ? e : new WaitlistError('internal', 'Something went wrong.');
      let first: HTMLElement | undefined;
      for (const i of err.issues) {
        const c = controls[i.path];
        if (!c) continue;
        c.setAttribute('aria-invalid', 'true');
        errs[i.path]!.textContent = i.message;
        first ??= c;
      }
      status.textContent =
        err.code === 'email_taken'
          ? 'This email is already on the waitlist.'
          : err.issues.length
            ? 'Please check the highlighted fields.'
            : err.message;
      first?.focus();
      // A used solution cannot be sent again: start the next one now.
      if (cfg.captcha === 'pow') altcha = solve(slug, key);
    } finally {
      button.disabled = false;
    }
  });
}

const api = {
  join: (input: JoinInput) => join(input),
  render: (el: Element, o: { slug?: string; key?: string } = {}) => render(el, o.slug ?? data.slug ?? '', o.key ?? data.key ?? ''),
};
(window as unknown as { Waitlist: typeof api }).Waitlist = api;

if (script && data.form !== 'false' && data.slug && data.key) {
  const { slug, key } = data;
  const start = () => {
    let host: Element | null = data.target ? document.querySelector(data.target) : null;
    if (!host) {
      host = document.createElement('div');
      if (script.closest('head') || !script.isConnected) document.body.prepend(host);
      else script.after(host);
    }
    host.setAttribute('data-waitlist', slug);
    render(host, slug, key).catch((e: Error) => {
      const root = host!.shadowRoot ?? host!.attachShadow({ mode: 'open' });
      root.replaceChildren(
        ...styleFor(root),
        h('div', { class: 'r' }, h('p', { role: 'alert', text: `Waitlist unavailable: ${e.message}` })),
      );
    });
  };
  // A script in <head> without async/defer runs before <body> (and a data-target) exists.
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
  else start();
}
