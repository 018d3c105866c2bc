// Subscribers of a project: debounced search, pages and page size, edit name, delete, export downloads.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Entry, type Page, type Project } from '../api.js';
import { ConfirmDialog, ErrorMsg, fmtDate, InlineRename, Loaded, Notice, Pager, Table } from '../ui.js';

const SIZES = [10, 20, 50, 100];

export function EntriesTab({ project }: { project: Project }) {
  const pid = project.projectId;
  const [search, setSearch] = useState(''); // what is typed
  const [query, setQuery] = useState(''); // what is searched, 300 ms after typing stops
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState(20);
  const [data, setData] = useState<Page<Entry> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  const [deleting, setDeleting] = useState<Entry | null>(null);
  const seq = useRef(0);

  const load = async () => {
    const mine = ++seq.current; // answers to older requests (typing fast) are dropped
    try {
      const d = await api.listEntries(pid, { page, limit, search: query || undefined });
      if (mine !== seq.current) return;
      setError(null);
      // A page that emptied (last entry deleted) steps back to the last page that has rows.
      if (d.items.length === 0 && page > 1 && d.totalPages < page) return setPage(Math.max(1, d.totalPages));
      setData(d);
    } catch (e) {
      if (mine === seq.current) setError(e);
    }
  };
  useEffect(() => void load(), [pid, page, limit, query]);
  useEffect(() => {
    const t = setTimeout(() => {
      setQuery(search.trim());
      setPage(1);
    }, 300);
    return () => clearTimeout(t);
  }, [search]);

  const rename = async (e: Entry, name: string) => {
    const updated = await api.updateEntry(pid, e.entryId, { name: name === '' ? null : name });
    setData((d) => d && { ...d, items: d.items.map((x) => (x.entryId === e.entryId ? updated : x)) });
    setNotice(`Name of ${updated.email} saved.`);
  };

  const from = data && data.total ? (data.page - 1) * data.limit + 1 : 0;
  const to = data ? from + data.items.length - (data.items.length ? 1 : 0) : 0;

  return (
    <section aria-labelledby="entries-title">
      <h2 id="entries-title">Entries</h2>
      <div class="row wrap toolbar">
        <div class="field grow">
          <label for="entry-search">Search email or name</label>
          <input id="entry-search" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="entry-limit">Per page</label>
          <select id="entry-limit" value={limit} onChange={(e) => (setLimit(Number(e.currentTarget.value)), setPage(1))}>
            {SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <span class="label" id="export-label">
            Export{query ? ' matches' : ''}
          </span>
          {/* biome-ignore lint/a11y/useSemanticElements: a fieldset would add its own border and legend layout; role=group says the same */}
          <div class="row" role="group" aria-labelledby="export-label">
            <a class="button small" href={api.exportUrl(pid, { format: 'csv', search: query || undefined })} download>
              CSV
            </a>
            <a class="button small" href={api.exportUrl(pid, { format: 'json', search: query || undefined })} download>
              JSON
            </a>
          </div>
        </div>
      </div>
      <ErrorMsg error={error} />
      <Notice text={notice} />
      <Loaded
        items={data && data.items}
        empty={query ? `No entry matches “${query}”.` : 'No one has joined yet. The Install tab shows how to add a join form to your site.'}
      >
        {(rows) => (
          <Table
            class="entries"
            caption="Waitlist entries, newest first"
            rows={rows}
            rowKey={(e) => e.entryId}
            columns={[
              { label: 'Email', class: 'email', cell: (e) => e.email },
              {
                label: 'Name',
                cell: (e) => <InlineRename label={`Name of ${e.email}`} value={e.name ?? ''} allowEmpty onSave={(n) => rename(e, n)} />,
              },
              { label: 'Source', cell: (e) => e.source },
              { label: 'Country', cell: (e) => e.country ?? '—' },
              { label: 'Joined', class: 'joined', cell: (e) => fmtDate(e.createdAt) },
              { label: 'Status', cell: (e) => e.status },
              { label: 'Position', cell: (e) => e.position ?? '—' },
            ]}
            actions={(e) => (
              <button type="button" class="danger small" onClick={() => setDeleting(e)} aria-label={`Delete ${e.email}`}>
                Delete
              </button>
            )}
          />
        )}
      </Loaded>
      {data ? (
        <Pager label="Pages" page={page} totalPages={data.totalPages} total={data.total} onPage={setPage}>
          {from}–{to} of {data.total} · page {data.page} of {data.totalPages}
        </Pager>
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${deleting.email}?`}
          confirmLabel="Delete entry"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await api.deleteEntry(pid, deleting.entryId);
            setNotice(`${deleting.email} deleted.`);
            await load();
          }}
        >
          <p>The entry leaves the list and exports. The same address may join again later.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
