// Project settings the other tabs did not show: the email settings (welcome email, sign-up notices; on the
// Email tab) and join protection (allowed origins, disposable addresses, honeypot; on the Sign-up page
// tab). Each form PUTs only the fields changed on it since it loaded (PUT changes only the fields given),
// so it never reverts what was changed elsewhere meanwhile.
import { useEffect, useState } from 'preact/hooks';
import type { ProjectSettings } from '../../../src/contract/schemas.js';
import { ApiError, api } from '../api.js';
import { attempt, ErrorMsg, Notice } from '../ui.js';

/** A list typed one item a line (or separated by commas) → its items. */
const listOf = (text: string) =>
  text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * What this dashboard knows about the server's SMTP. No API field says whether the server has SMTP; the
 * signals are the server's 409 smtp_not_configured (turning on an email setting without SMTP), and the
 * email log (an email delivered means the server sends email). Kept for the page's life.
 */
let smtpMissing = false;

function useSettings<K extends keyof ProjectSettings>(pid: string, keys: readonly K[]) {
  const [base, setBase] = useState<Pick<ProjectSettings, K> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const pick = (all: ProjectSettings) => Object.fromEntries(keys.map((k) => [k, all[k]])) as Pick<ProjectSettings, K>;
  useEffect(() => void api.getSettings(pid).then((all) => setBase(pick(all)), setError), [pid]);
  /** PUTs the fields of `wanted` that differ from what was loaded; answers false when none did. */
  const save = async (wanted: Pick<ProjectSettings, K>): Promise<boolean> => {
    if (!base) return false;
    const changed = Object.fromEntries(keys.filter((k) => !same(wanted[k], base[k])).map((k) => [k, wanted[k]]));
    if (Object.keys(changed).length === 0) return false;
    setBase(pick(await api.updateSettings(pid, changed as never)));
    return true;
  };
  return { base, error, setError, save };
}

const EMAIL_KEYS = ['welcomeEmail', 'notify', 'notifyEmails'] as const;

/** Email tab: welcome email, sign-up notices and who gets them; and what is known about SMTP. */
export function EmailSettings({ pid, sentEmail }: { pid: string; sentEmail: boolean }) {
  const { base, error, setError, save } = useSettings(pid, EMAIL_KEYS);
  const [welcome, setWelcome] = useState(false);
  const [notify, setNotify] = useState<ProjectSettings['notify']>('off');
  const [emails, setEmails] = useState('');
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  const [noSmtp, setNoSmtp] = useState(smtpMissing);
  const loaded = base !== null;
  useEffect(() => {
    if (!base) return;
    setWelcome(base.welcomeEmail);
    setNotify(base.notify);
    setEmails(base.notifyEmails.join('\n'));
  }, [loaded]);
  if (!base) return <ErrorMsg error={error} />;

  const submit = (e: Event) => {
    e.preventDefault();
    setNotice('');
    const list = listOf(emails);
    if (list.length > 20) return setError(new Error(`At most 20 addresses get notices; there are ${list.length}.`));
    void attempt(
      (err) => {
        if (err instanceof ApiError && err.code === 'smtp_not_configured') {
          smtpMissing = true;
          setNoSmtp(true);
        }
        setError(err);
      },
      async () => {
        const saved = await save({ welcomeEmail: welcome, notify, notifyEmails: list });
        setNotice(saved ? 'Email settings saved.' : 'Nothing changed: nothing to save.');
      },
      setBusy,
    );
  };
  const smtpText = noSmtp
    ? 'This server has no SMTP: it refused an email setting (409 smtp_not_configured). Start it with --smtp-url (and --mail-from) to send email; until then the welcome email and sign-up notices cannot be turned on, and no email is sent.'
    : sentEmail
      ? 'This server sends email: the email log below has delivered emails.'
      : 'The dashboard cannot ask the server whether it has SMTP (no API field says so). Turning on an email setting tells: without SMTP (--smtp-url) the server refuses it and this page says so.';
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="email-settings-title">
      <h3 id="email-settings-title">Email settings</h3>
      <p class={noSmtp ? 'card warn' : 'hint'} id="smtp-status" role="status">
        <strong>SMTP:</strong> {smtpText}
      </p>
      <label class="check">
        <input type="checkbox" checked={welcome} onChange={(e) => setWelcome(e.currentTarget.checked)} /> Send a welcome email to each new
        subscriber (with double opt-in: once confirmed)
      </label>
      <div class="field">
        <label for="notify-mode">Notices of new sign-ups</label>
        <select id="notify-mode" value={notify} onChange={(e) => setNotify(e.currentTarget.value as ProjectSettings['notify'])}>
          <option value="off">off</option>
          <option value="each">one email per sign-up</option>
          <option value="hourly">an hourly digest</option>
        </select>
      </div>
      <div class="field">
        <label for="notify-emails">Send notices to (one address a line, up to 20)</label>
        <textarea
          id="notify-emails"
          rows={3}
          spellcheck={false}
          placeholder="founder@example.com"
          value={emails}
          onInput={(e) => setEmails(e.currentTarget.value)}
        />
      </div>
      <ErrorMsg error={error} />
      <Notice text={notice} />
      <div>
        <button type="submit" class="primary" disabled={busy}>
          Save email settings
        </button>
      </div>
    </form>
  );
}

const PROTECTION_KEYS = ['allowedOrigins', 'blockDisposableEmails', 'honeypotField'] as const;

/** Sign-up page tab: which sites may send joins, disposable addresses, and a honeypot field. */
export function JoinProtection({ pid }: { pid: string }) {
  const { base, error, setError, save } = useSettings(pid, PROTECTION_KEYS);
  const [origins, setOrigins] = useState('');
  const [block, setBlock] = useState(false);
  const [honeypot, setHoneypot] = useState('');
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  const loaded = base !== null;
  useEffect(() => {
    if (!base) return;
    setOrigins(base.allowedOrigins.join('\n'));
    setBlock(base.blockDisposableEmails);
    setHoneypot(base.honeypotField ?? '');
  }, [loaded]);
  if (!base) return <ErrorMsg error={error} />;
  const submit = (e: Event) => {
    e.preventDefault();
    setNotice('');
    void attempt(
      setError,
      async () => {
        const saved = await save({
          allowedOrigins: listOf(origins),
          blockDisposableEmails: block,
          honeypotField: honeypot.trim() || null,
        });
        setNotice(saved ? 'Join protection saved.' : 'Nothing changed: nothing to save.');
      },
      setBusy,
    );
  };
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="protection-title">
      <h2 id="protection-title">Join protection</h2>
      <div class="field">
        <label for="allowed-origins">Sites allowed to send joins from a browser (one origin a line; empty: any site)</label>
        <textarea
          id="allowed-origins"
          rows={3}
          spellcheck={false}
          placeholder="https://example.com"
          aria-describedby="allowed-origins-hint"
          value={origins}
          onInput={(e) => setOrigins(e.currentTarget.value)}
        />
        <p class="hint" id="allowed-origins-hint">
          Scheme, host and optional port, no path (at most 50). A browser join from any other site is refused with 403; your server's own
          requests are not affected.
        </p>
      </div>
      <label class="check">
        <input type="checkbox" checked={block} onChange={(e) => setBlock(e.currentTarget.checked)} /> Refuse throwaway (disposable) email
        addresses
      </label>
      <div class="field">
        <label for="honeypot-field">Honeypot field name (empty: none)</label>
        <input
          id="honeypot-field"
          spellcheck={false}
          placeholder="website"
          aria-describedby="honeypot-hint"
          value={honeypot}
          onInput={(e) => setHoneypot(e.currentTarget.value)}
        />
        <p class="hint" id="honeypot-hint">
          An extra field your form includes but hides from people. A join that fills it in gets a normal-looking answer and is not stored.
        </p>
      </div>
      <ErrorMsg error={error} />
      <Notice text={notice} />
      <div>
        <button type="submit" class="primary" disabled={busy}>
          Save join protection
        </button>
      </div>
    </form>
  );
}
