// The queue of a project: entries by status (waiting in queue order with positions), invite the next N
// with a preview, the referral leaderboard, and the lifecycle settings. API calls go through the typed
// client (src/client/index.ts) on the dashboard's own origin and session cookie.
import { useEffect, useState } from 'preact/hooks';
import type { EntryStatusName, InvitedEntry, InvitePreview, LeaderboardEntry } from '../../../src/contract/lifecycle.js';
import type { ProjectSettings } from '../../../src/contract/schemas.js';
import { api, type Entry, type Page, type Project } from '../api.js';
import { attempt, CopyField, ErrorMsg, fmtDate, Loaded, Notice, Pager, Table } from '../ui.js';

// The shared client (api.ts): a 401 sends the user back to the login page.
const client = api;
const STATUSES: EntryStatusName[] = ['waiting', 'pending', 'invited', 'accepted'];

export function QueueTab({ project }: { project: Project }) {
  const pid = project.projectId;
  const [status, setStatus] = useState<EntryStatusName>('waiting');
  const [page, setPage] = useState(1);
  const [data, setData] = useState<Page<Entry> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    setError(null);
    client.listEntries(pid, { status, sort: status === 'waiting' ? 'position' : 'newest', page, limit: 20 }).then(setData, setError);
  }, [pid, status, page, version]);

  return (
    <section aria-labelledby="queue-title">
      <h2 id="queue-title">Queue</h2>
      <div class="row wrap toolbar">
        <div class="field">
          <label for="queue-status">Status</label>
          <select id="queue-status" value={status} onChange={(e) => (setStatus(e.currentTarget.value as EntryStatusName), setPage(1))}>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorMsg error={error} />
      <Loaded items={data && data.items} empty={`No ${status} entries.`}>
        {(rows) => (
          <Table
            class="entries queue"
            caption={status === 'waiting' ? 'Waiting entries in queue order' : `${status} entries, newest first`}
            rows={rows}
            rowKey={(e) => e.entryId}
            columns={[
              { label: 'Position', cell: (e) => e.position ?? '—' },
              { label: 'Email', class: 'email', cell: (e) => e.email },
              { label: 'Name', cell: (e) => e.name ?? '—' },
              { label: 'Status', cell: (e) => e.status },
              { label: 'Referrals', cell: (e) => e.referrals },
              { label: 'Joined', cell: (e) => fmtDate(e.createdAt) },
            ]}
          />
        )}
      </Loaded>
      {data ? (
        <Pager label="Queue pages" page={page} totalPages={data.totalPages} total={data.total} onPage={setPage}>
          {data.total} {status} · page {data.page} of {data.totalPages}
        </Pager>
      ) : null}
      <InviteNext pid={pid} onInvited={() => setVersion((v) => v + 1)} />
      <Leaderboard pid={pid} version={version} />
      <LifecycleSettings pid={pid} />
    </section>
  );
}

function InviteNext({ pid, onInvited }: { pid: string; onInvited: () => void }) {
  const [count, setCount] = useState(10);
  const [preview, setPreview] = useState<InvitePreview['invited'] | null>(null);
  const [invited, setInvited] = useState<InvitedEntry[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const doPreview = () =>
    attempt(
      setError,
      async () => {
        const r = await client.inviteEntries(pid, { count, dryRun: true });
        if ('dryRun' in r) setPreview(r.invited);
      },
      setBusy,
    );
  // The confirm invites exactly the people previewed (by id), never "the next N" again: someone invited
  // elsewhere in between would otherwise shift the batch onto people nobody saw.
  const confirm = (ids: string[]) =>
    attempt(
      setError,
      async () => {
        const r = await client.inviteEntries(pid, { entryIds: ids });
        if (!('dryRun' in r)) setInvited(r.invited);
        setPreview(null);
        onInvited();
      },
      setBusy,
    );
  const csv = invited ? ['email,inviteCode,expiresAt', ...invited.map((i) => `${i.email},${i.inviteCode},${i.expiresAt}`)].join('\n') : '';
  return (
    <div class="card">
      <h3>Invite the next people</h3>
      <form class="row wrap" onSubmit={(e) => (e.preventDefault(), void doPreview())}>
        <div class="field">
          <label for="invite-count">How many (1–10,000)</label>
          <input
            id="invite-count"
            type="number"
            required
            min={1}
            max={10000}
            value={count}
            onInput={(e) => setCount(Number(e.currentTarget.value))}
          />
        </div>
        <button type="submit" disabled={busy}>
          Preview
        </button>
      </form>
      <ErrorMsg error={error} />
      {preview ? (
        <>
          <p>{preview.length ? `These ${preview.length} would be invited:` : 'Nobody is waiting.'}</p>
          <ol class="preview">
            {preview.slice(0, 50).map((e) => (
              <li key={e.entryId}>
                #{e.position} {e.email}
              </li>
            ))}
          </ol>
          {preview.length > 50 ? <p class="muted">…and {preview.length - 50} more.</p> : null}
          {preview.length ? (
            <button type="button" disabled={busy} onClick={() => void confirm(preview.map((e) => e.entryId))}>
              Invite {preview.length}
            </button>
          ) : null}
        </>
      ) : null}
      <Notice text={invited ? `Invited ${invited.length}: copy their codes below.` : ''} />
      {invited ? (
        <section class="card warn" aria-labelledby="invite-codes-title">
          <h3 id="invite-codes-title">Invited {invited.length}: their invite codes</h3>
          <p>
            <strong>Copy the codes now: this is the only time they are shown.</strong> The server keeps only a hash of each code. With SMTP
            configured, each person also gets an invite email; without it, send them their code yourself.
          </p>
          {invited.length ? (
            <>
              <div class="table-wrap">
                <table class="invite-codes">
                  <caption class="sr-only">Invite codes</caption>
                  <thead>
                    <tr>
                      <th scope="col">Email</th>
                      <th scope="col">Invite code</th>
                      <th scope="col">Expires</th>
                    </tr>
                  </thead>
                  <tbody>
                    {invited.slice(0, 100).map((i) => (
                      <tr key={i.entryId}>
                        <td data-label="Email" class="email">
                          {i.email}
                        </td>
                        <td data-label="Invite code">
                          <code>{i.inviteCode}</code>
                        </td>
                        <td data-label="Expires">{fmtDate(i.expiresAt)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {invited.length > 100 ? <p class="muted">…and {invited.length - 100} more: all of them are in the CSV below.</p> : null}
              <CopyField label="Invite codes (CSV)" value={csv} multiline />
            </>
          ) : null}
          <button type="button" onClick={() => setInvited(null)}>
            I have saved them
          </button>
        </section>
      ) : null}
    </div>
  );
}

function Leaderboard({ pid, version }: { pid: string; version: number }) {
  const [rows, setRows] = useState<LeaderboardEntry[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => void client.leaderboard(pid).then(setRows, setError), [pid, version]);
  return (
    <div class="card">
      <h3>Top referrers</h3>
      <ErrorMsg error={error} />
      {rows === null ? null : rows.length === 0 ? (
        <p class="muted">No referrals yet.</p>
      ) : (
        <ol class="leaderboard">
          {rows.slice(0, 10).map((r) => (
            <li key={r.entryId}>
              {r.name ?? r.email} — {r.referrals} referral{r.referrals === 1 ? '' : 's'}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

type LcFields = Pick<
  ProjectSettings,
  'doubleOptIn' | 'referralBoost' | 'referralUrl' | 'publicLeaderboard' | 'inviteTtlDays' | 'inviteUrl' | 'pendingPurgeDays'
>;

const LC_KEYS = [
  'doubleOptIn',
  'referralBoost',
  'referralUrl',
  'publicLeaderboard',
  'inviteTtlDays',
  'inviteUrl',
  'pendingPurgeDays',
] as const;

/** Only this form's fields, from the full settings (the rest are other tabs' business). */
const lcOf = (all: ProjectSettings): LcFields => Object.fromEntries(LC_KEYS.map((k) => [k, all[k]])) as LcFields;

function LifecycleSettings({ pid }: { pid: string }) {
  const [s, setS] = useState<LcFields | null>(null);
  // The values as last loaded or saved: Save sends only the fields changed since (PUT changes only the
  // fields given), so it never reverts what was changed elsewhere meanwhile.
  const [base, setBase] = useState<LcFields | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  useEffect(
    () =>
      void client.getSettings(pid).then((all) => {
        setS(lcOf(all));
        setBase(lcOf(all));
      }, setError),
    [pid],
  );
  if (!s || !base) return <ErrorMsg error={error} />;
  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setNotice('');
    const wanted: LcFields = {
      ...s,
      referralUrl: s.referralUrl?.trim() ? s.referralUrl.trim() : null,
      inviteUrl: s.inviteUrl?.trim() ? s.inviteUrl.trim() : null,
    };
    const changed = Object.fromEntries(LC_KEYS.filter((k) => wanted[k] !== base[k]).map((k) => [k, wanted[k]])) as Partial<LcFields>;
    if (Object.keys(changed).length === 0) {
      setNotice('Nothing changed: nothing to save.');
      return;
    }
    try {
      const next = lcOf(await client.updateSettings(pid, changed));
      setS(next);
      setBase(next);
      setNotice('Launch settings saved.');
    } catch (err) {
      setError(err);
    }
  };
  const num = (k: 'referralBoost' | 'inviteTtlDays' | 'pendingPurgeDays') => (e: Event) =>
    setS({ ...s, [k]: Number((e.currentTarget as HTMLInputElement).value) });
  return (
    <form class="card" onSubmit={save}>
      <h3>Launch settings</h3>
      <label class="check">
        <input type="checkbox" checked={s.doubleOptIn} onChange={(e) => setS({ ...s, doubleOptIn: e.currentTarget.checked })} /> Double
        opt-in (needs SMTP)
      </label>
      <label class="check">
        <input type="checkbox" checked={s.publicLeaderboard} onChange={(e) => setS({ ...s, publicLeaderboard: e.currentTarget.checked })} />{' '}
        Public leaderboard
      </label>
      <div class="field">
        <label for="lc-boost">Places a referral moves the referrer up (0–1000)</label>
        <input id="lc-boost" type="number" min={0} max={1000} value={s.referralBoost} onInput={num('referralBoost')} />
      </div>
      <div class="field">
        <label for="lc-refurl">Referral link template (empty: the hosted page)</label>
        <input
          id="lc-refurl"
          type="text"
          placeholder="https://example.com/?ref={code}"
          value={s.referralUrl ?? ''}
          onInput={(e) => setS({ ...s, referralUrl: e.currentTarget.value })}
        />
      </div>
      <div class="field">
        <label for="lc-ttl">Invite codes valid for (days, 1–365)</label>
        <input id="lc-ttl" type="number" min={1} max={365} value={s.inviteTtlDays} onInput={num('inviteTtlDays')} />
      </div>
      <div class="field">
        <label for="lc-invurl">Invite link template (empty: code only)</label>
        <input
          id="lc-invurl"
          type="text"
          placeholder="https://app.example.com/signup?invite={code}"
          value={s.inviteUrl ?? ''}
          onInput={(e) => setS({ ...s, inviteUrl: e.currentTarget.value })}
        />
      </div>
      <div class="field">
        <label for="lc-purge">Erase unconfirmed entries after (days, 1–365)</label>
        <input id="lc-purge" type="number" min={1} max={365} value={s.pendingPurgeDays} onInput={num('pendingPurgeDays')} />
      </div>
      <ErrorMsg error={error} />
      <Notice text={notice} />
      <button type="submit">Save launch settings</button>
    </form>
  );
}
