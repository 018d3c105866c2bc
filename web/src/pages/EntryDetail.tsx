// One entry of a project (#/projects/<id>/entries/<entryId>): everything the management API holds about
// it (status and its times, queue position, referral code, who referred it and how many it referred,
// custom fields, source, IP, user agent), its metadata as editable JSON (checked here before it is sent;
// the server's 400 issues are shown in words), and an invite of this one entry whose code is shown once.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { InvitedEntry } from '../../../src/contract/lifecycle.js';
import { api, type Entry, type Project } from '../api.js';
import { attempt, CopyField, ErrorMsg, fmtDate, Notice } from '../ui.js';

/** The server's limits on metadata (docs/api.md): a JSON object, at most 8 KiB serialised, 5 levels deep. */
const METADATA_BYTES = 8 * 1024;
const METADATA_DEPTH = 5;

const depth = (v: unknown): number =>
  v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v as Record<string, unknown>).map(depth)) : 0;

/** The metadata typed in the box as an object, or the reason it cannot be sent, in words. */
export function parseMetadata(text: string): { value: Record<string, unknown> } | { problem: string } {
  let value: unknown;
  let inexact: { source: string; kept: number } | undefined;
  try {
    // A whole number with more digits than a JSON number keeps (an id such as 123456789012345678901)
    // would be stored rounded: the reviver sees each number's source text (browsers since 2023) and
    // keeps the first that does not survive.
    value = JSON.parse(text.trim() === '' ? '{}' : text, (_key, v: unknown, context?: { source?: string }) => {
      const src = context?.source;
      if (!inexact && typeof v === 'number' && Number.isFinite(v) && src && /^-?\d+$/.test(src) && BigInt(src) !== BigInt(v)) {
        inexact = { source: src, kept: v };
      }
      return v;
    });
  } catch (e) {
    return { problem: `Metadata is not valid JSON: ${(e as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return { problem: `Metadata must be a JSON object such as {"plan": "pro"}, not ${kind}.` };
  }
  const inf = nonFinite(value, 'metadata');
  if (inf) return { problem: `${inf} is a number too large to store (like 1e400).` };
  if (inexact) {
    const { source, kept } = inexact as { source: string; kept: number };
    return {
      problem: `${source} has more digits than a number keeps (it would be stored as ${kept}): write it as a string, "${source}".`,
    };
  }
  if (depth(value) > METADATA_DEPTH) return { problem: `Metadata may nest at most ${METADATA_DEPTH} levels.` };
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  if (bytes > METADATA_BYTES) return { problem: `Metadata is ${bytes} bytes; at most ${METADATA_BYTES} are allowed.` };
  return { value: value as Record<string, unknown> };
}

/** The path of a number JSON cannot hold (1e400 parses as Infinity, which would be sent as null). */
const nonFinite = (v: unknown, path: string): string | null => {
  if (typeof v === 'number') return Number.isFinite(v) ? null : path;
  if (v === null || typeof v !== 'object') return null;
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const found = nonFinite(x, `${path}.${k}`);
    if (found) return found;
  }
  return null;
};

const show = (v: unknown) => (v === null || v === undefined || v === '' ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));

export function EntryDetail({ project, entryId, detailHref }: { project: Project; entryId: string; detailHref: (id: string) => string }) {
  const pid = project.projectId;
  const [entry, setEntry] = useState<Entry | null>(null);
  const [referrer, setReferrer] = useState<Entry | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [metaText, setMetaText] = useState('');
  const [metaProblem, setMetaProblem] = useState('');
  const [metaError, setMetaError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  const [inviteError, setInviteError] = useState<unknown>(null);
  const [invited, setInvited] = useState<InvitedEntry | null>(null);
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    setEntry(null);
    setReferrer(null);
    setError(null);
    setNotice('');
    setInvited(null);
    api.getEntry(pid, entryId).then((e) => {
      setEntry(e);
      setMetaText(JSON.stringify(e.metadata, null, 2));
      if (e.referredBy) api.getEntry(pid, e.referredBy).then(setReferrer, () => setReferrer(null));
    }, setError);
  }, [pid, entryId]);
  const loaded = entry?.entryId;
  useEffect(() => {
    if (loaded) heading.current?.focus();
  }, [loaded]);

  const back = (
    <p>
      <a href={`#/projects/${pid}/entries`}>← Back to entries</a>
    </p>
  );
  if (error) {
    return (
      <section aria-labelledby="entry-title">
        <h2 id="entry-title">Entry</h2>
        <ErrorMsg error={error} />
        {back}
      </section>
    );
  }
  if (!entry) return <p>Loading…</p>;

  const saveMetadata = (e: Event) => {
    e.preventDefault();
    setNotice('');
    const parsed = parseMetadata(metaText);
    if ('problem' in parsed) {
      setMetaProblem(parsed.problem);
      setMetaError(null);
      return;
    }
    setMetaProblem('');
    void attempt(
      setMetaError,
      async () => {
        const updated = await api.updateEntry(pid, entry.entryId, { metadata: parsed.value });
        setEntry(updated);
        setMetaText(JSON.stringify(updated.metadata, null, 2));
        setNotice('Metadata saved.');
      },
      setBusy,
    );
  };
  const invite = () =>
    attempt(
      setInviteError,
      async () => {
        setNotice('');
        const r = await api.inviteEntries(pid, { entryIds: [entry.entryId] });
        if ('dryRun' in r) return;
        const mine = r.invited.find((i) => i.entryId === entry.entryId) ?? null;
        setInvited(mine);
        setEntry(await api.getEntry(pid, entry.entryId));
      },
      setBusy,
    );
  const canInvite = entry.status === 'waiting' || entry.status === 'invited';
  const fieldKeys = Object.keys(entry.fields ?? {});
  const rows: [string, ComponentChildren][] = [
    ['Status', <strong key="s">{entry.status}</strong>],
    ['Queue position', entry.position ?? '— (only waiting entries have one)'],
    ['Name', show(entry.name)],
    ['Source', show(entry.source)],
    ['Joined', fmtDate(entry.createdAt)],
    ['Confirmed', entry.confirmedAt ? fmtDate(entry.confirmedAt) : '—'],
    ['Invited', entry.invitedAt ? fmtDate(entry.invitedAt) : '—'],
    ['Accepted', entry.acceptedAt ? fmtDate(entry.acceptedAt) : '—'],
    ['Last changed', fmtDate(entry.updatedAt)],
    ['Referral code', entry.referralCode ? <code key="c">{entry.referralCode}</code> : '—'],
    [
      'Referred by',
      entry.referredBy ? (
        <a key="r" href={detailHref(entry.referredBy)}>
          {referrer?.email ?? entry.referredBy}
        </a>
      ) : (
        '—'
      ),
    ],
    ['Referrals', entry.referrals],
    ['Country', show(entry.country)],
    ['IP address', show(entry.ip)],
    ['User agent', show(entry.userAgent)],
    ['Entry ID', <code key="i">{entry.entryId}</code>],
  ];

  return (
    <section aria-labelledby="entry-title" class="entry-detail">
      {back}
      <h2 id="entry-title" ref={heading} tabIndex={-1}>
        {entry.email}
      </h2>
      <Notice text={notice} />
      <div class="grid2">
        <div class="card">
          <h3>Details</h3>
          <dl class="meta detail">
            {rows.map(([k, v]) => (
              <div key={k} class="contents">
                <dt>{k}</dt>
                <dd>{v}</dd>
              </div>
            ))}
          </dl>
        </div>
        <div class="card">
          <h3>Custom fields</h3>
          {fieldKeys.length === 0 ? (
            <p class="muted">No custom field answers.</p>
          ) : (
            <dl class="meta detail">
              {fieldKeys.map((k) => (
                <div key={k} class="contents">
                  <dt>{k}</dt>
                  <dd>{show(entry.fields[k])}</dd>
                </div>
              ))}
            </dl>
          )}
          <h3>Invite</h3>
          {invited ? (
            <section class="card warn" aria-labelledby="entry-invite-title">
              <h4 id="entry-invite-title">Invite code for {invited.email}</h4>
              <p>
                <strong>Copy the code now: this is the only time it is shown</strong> (the server keeps only a hash). It is valid until{' '}
                {fmtDate(invited.expiresAt)}; with SMTP the person also gets an invite email.
              </p>
              <CopyField label="Invite code" value={invited.inviteCode} />
              <button type="button" onClick={() => setInvited(null)}>
                I have saved it
              </button>
            </section>
          ) : canInvite ? (
            <>
              <p class="hint">
                {entry.status === 'invited'
                  ? 'Invite again: a new code replaces the old one, which stops working.'
                  : 'Let this person in now, ahead of the queue.'}
              </p>
              <button type="button" onClick={() => void invite()} disabled={busy}>
                {entry.status === 'invited' ? 'Invite again (new code)' : 'Invite'}
              </button>
            </>
          ) : (
            <p class="muted">
              {entry.status === 'pending'
                ? 'A pending entry is invited once it confirms its email.'
                : 'This person has accepted an invite.'}
            </p>
          )}
          <ErrorMsg error={inviteError} />
        </div>
      </div>
      <form class="card stack" onSubmit={saveMetadata}>
        <div class="field">
          <label for="entry-metadata">Metadata (a JSON object)</label>
          <textarea
            id="entry-metadata"
            rows={Math.min(16, Math.max(4, metaText.split('\n').length + 1))}
            spellcheck={false}
            value={metaText}
            aria-invalid={metaProblem ? 'true' : undefined}
            aria-describedby="entry-metadata-hint"
            onInput={(e) => (setMetaText(e.currentTarget.value), setMetaProblem(''))}
          />
          <p class="hint" id="entry-metadata-hint">
            Saving replaces the whole metadata object (at most 8 KiB, 5 levels deep). Empty means {'{}'}.
          </p>
        </div>
        {metaProblem ? (
          <p class="error" role="alert">
            {metaProblem}
          </p>
        ) : null}
        <ErrorMsg error={metaError} />
        <div>
          <button type="submit" class="primary" disabled={busy}>
            Save metadata
          </button>
        </div>
      </form>
    </section>
  );
}
