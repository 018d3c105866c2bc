// Small shared pieces: error text, confirmation dialog, copy button, inline rename, dates, hash routing.
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
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
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
