// Small shared pieces: error text, confirmation dialog, copy button, inline rename, a secret shown once,
// lists (loading and empty states, tables, pagers), dates, hash routing.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from './api.js';

/** An error in words, announced to screen readers. Renders nothing without an error. */
export function ErrorMsg({ error }: { error: unknown }) {
  return (
    <div class="error-slot">
      {error ? (
        <p class="error" role="alert">
          {errorText(error)}
        </p>
      ) : null}
    </div>
  );
}

/** A status line for success messages (polite live region). */
export function Notice({ text }: { text: string }) {
  return (
    <p class="notice" aria-live="polite">
      {text}
    </p>
  );
}

/** A modal confirmation (native <dialog>: focus is trapped, Escape cancels). */
export function ConfirmDialog(props: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // Where focus goes back to: the button that opened the dialog or, when it is gone (its row was
  // deleted), the heading of the section it was in, else the page's heading; never <body>.
  const opener = useRef<HTMLElement | null>(null);
  const fallback = useRef<HTMLElement | null>(null);
  if (opener.current === null && document.activeElement instanceof HTMLElement && document.activeElement !== document.body) {
    opener.current = document.activeElement;
    fallback.current = opener.current.closest('section')?.querySelector<HTMLElement>('h1, h2') ?? null;
  }
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => {
      d?.close();
      setTimeout(() => {
        if (opener.current?.isConnected) return opener.current.focus();
        const target = (fallback.current?.isConnected ? fallback.current : null) ?? document.querySelector<HTMLElement>('main h1, main h2');
        if (!target) return;
        if (!target.hasAttribute('tabindex')) target.tabIndex = -1;
        target.focus();
      });
    };
  }, []);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await props.onConfirm();
      props.onClose();
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="dialog-title" onCancel={() => props.onClose()}>
      <h2 id="dialog-title">{props.title}</h2>
      <div>{props.children}</div>
      <ErrorMsg error={error} />
      <div class="row end">
        <button type="button" onClick={props.onClose} autofocus>
          Cancel
        </button>
        <button type="button" class="danger" disabled={busy} onClick={confirm}>
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

async function copyText(text: string, fallback: HTMLElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Plain-HTTP origins other than localhost have no async clipboard: select the text instead.
    if (fallback instanceof HTMLTextAreaElement || fallback instanceof HTMLInputElement) {
      fallback.focus();
      fallback.select();
      return document.execCommand('copy');
    }
    return false;
  }
}

/** A read-only value with a Copy button. */
export function CopyField({ label, value, multiline = false }: { label: string; value: string; multiline?: boolean }) {
  const ref = useRef<HTMLTextAreaElement & HTMLInputElement>(null);
  const [state, setState] = useState('');
  const id = `copy-${label.replace(/\W+/g, '-').toLowerCase()}`;
  const copy = async () => setState((await copyText(value, ref.current)) ? 'Copied' : 'Select the text and copy it by hand');
  return (
    <div class="copy-field">
      <label for={id}>{label}</label>
      <div class="row">
        {multiline ? (
          <textarea id={id} ref={ref} readOnly rows={value.split('\n').length} value={value} spellcheck={false} />
        ) : (
          <input id={id} ref={ref} readOnly value={value} spellcheck={false} onFocus={(e) => e.currentTarget.select()} />
        )}
        <button type="button" onClick={copy} aria-label={`Copy ${label}`}>
          Copy
        </button>
      </div>
      <span class="hint" aria-live="polite">
        {state}
      </span>
    </div>
  );
}

/** A name shown as text with a Rename button that turns it into a small form. */
export function InlineRename(props: {
  value: string;
  label: string;
  onSave: (name: string) => Promise<void>;
  allowEmpty?: boolean;
  /** Show only a "Rename" button (the name is already shown nearby). */
  buttonOnly?: boolean;
}) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(props.value);
  const [error, setError] = useState<unknown>(null);
  const input = useRef<HTMLInputElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const opened = useRef(false);
  useEffect(() => {
    // Focus the field when editing starts, and the button again when it ends.
    if (editing) input.current?.focus();
    else if (opened.current) button.current?.focus();
    opened.current ||= editing;
  }, [editing]);
  if (!editing) {
    return (
      <span class="inline-rename">
        {props.buttonOnly ? null : <span>{props.value || <em class="muted">no name</em>}</span>}
        <button
          ref={button}
          type="button"
          class={props.buttonOnly ? 'small' : 'link'}
          onClick={() => (setDraft(props.value), setError(null), setEditing(true))}
          aria-label={`${props.label}: ${props.value || 'no name'}`}
        >
          {props.buttonOnly ? 'Rename' : 'Edit'}
        </button>
      </span>
    );
  }
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      await props.onSave(draft.trim());
      setEditing(false);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="inline-rename" onSubmit={submit} onKeyDown={(e) => e.key === 'Escape' && setEditing(false)}>
      <input
        ref={input}
        aria-label={props.label}
        value={draft}
        required={!props.allowEmpty}
        onInput={(e) => setDraft(e.currentTarget.value)}
      />
      <button type="submit">Save</button>
      <button type="button" class="link" onClick={() => setEditing(false)}>
        Cancel
      </button>
      <ErrorMsg error={error} />
    </form>
  );
}

/**
 * Runs what a button or form asks for: clears the error shown, and shows this action's error if it fails;
 * with `setBusy`, busy while it runs (to disable the button).
 */
export async function attempt(setError: (error: unknown) => void, action: () => Promise<unknown>, setBusy?: (busy: boolean) => void) {
  setBusy?.(true);
  setError(null);
  try {
    await action();
  } catch (err) {
    setError(err);
  } finally {
    setBusy?.(false);
  }
}

/** A secret the server shows only in this answer (a key, a signing secret): copy it, then dismiss the card. */
export function ShownOnce(props: {
  id: string;
  title: string;
  label: string;
  value: string;
  onDone: () => void;
  children: ComponentChildren;
}) {
  return (
    <section class="card warn" aria-labelledby={props.id}>
      <h3 id={props.id}>{props.title}</h3>
      <p>{props.children}</p>
      <CopyField label={props.label} value={props.value} />
      <button type="button" onClick={props.onDone}>
        I have saved it
      </button>
    </section>
  );
}

/** A list that loads: "Loading…" while `items` is null, the `empty` text when there are none, else `children(items)`. */
export function Loaded<T>(props: { items: T[] | null; empty: ComponentChildren; children: (items: T[]) => ComponentChildren }) {
  if (props.items === null) return <p>Loading…</p>;
  if (props.items.length === 0) return <p class="muted">{props.empty}</p>;
  return <>{props.children(props.items)}</>;
}

/** One column of a Table: its header, which also labels each cell in the narrow (one card per row) layout. */
export interface Column<T> {
  label: string;
  cell: (row: T) => ComponentChildren;
  /** A class on the header and the cells. */
  class?: string;
}

/** A data table: a caption for screen readers, a header row, a row per item, and an optional last column of actions. */
export function Table<T>(props: {
  caption: string;
  class?: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  actions?: (row: T) => ComponentChildren;
  /** Attributes of a row's <tr> (e.g. a data-status the tests look for). */
  rowAttrs?: (row: T) => Record<string, string>;
}) {
  return (
    <div class="table-wrap">
      <table class={props.class}>
        <caption class="sr-only">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th key={c.label} scope="col" class={c.class}>
                {c.label}
              </th>
            ))}
            {props.actions ? (
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)} {...props.rowAttrs?.(row)}>
              {props.columns.map((c) => (
                <td key={c.label} data-label={c.label} class={c.class}>
                  {c.cell(row)}
                </td>
              ))}
              {props.actions ? <td>{props.actions(row)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Previous / Next around a description of the page; renders nothing for an empty list. */
export function Pager(props: {
  label: string;
  page: number;
  totalPages: number;
  total: number;
  onPage: (page: number) => void;
  children: ComponentChildren;
}) {
  if (props.total === 0) return null;
  return (
    <nav class="row pager" aria-label={props.label}>
      <button type="button" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        Previous
      </button>
      <span aria-live="polite">{props.children}</span>
      <button type="button" disabled={props.page >= props.totalPages} onClick={() => props.onPage(props.page + 1)}>
        Next
      </button>
    </nav>
  );
}

const dateFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const fmtDate = (iso: string | null) => (iso ? dateFmt.format(new Date(iso)) : 'never');

/** The current hash route as path segments: `#/projects/prj_1/keys` → ['projects', 'prj_1', 'keys']. */
export function useHashRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const on = () => setRoute(read());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

export const go = (path: string) => {
  location.hash = `#${path}`;
};
