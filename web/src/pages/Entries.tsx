// Subscribers of a project: debounced search, status filter and sort, pages and page size, edit name,
// delete, export downloads; `#/projects/<id>/entries/<entryId>` opens one entry's detail (EntryDetail.tsx)
// while this list keeps its search, filter and page for the way back.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { EntryStatusName } from '../../../src/contract/lifecycle.js';
import { api, type Entry, type Page, type Project } from '../api.js';
import { ConfirmDialog, ErrorMsg, fmtDate, InlineRename, Loaded, Notice, Pager, Table } from '../ui.js';
import { EntryDetail } from './EntryDetail.js';

const SIZES = [10, 20, 50, 100];
const STATUSES: EntryStatusName[] = ['pending', 'waiting', 'invited', 'accepted'];
type Sort = 'newest' | 'position';

/** The list's search, filter, sort, page and size, as kept for the way back. */
interface ListView {
  status: EntryStatusName | '';
  sort: Sort;
  query: string;
  page: number;
  limit: number;
}
const DEFAULT_VIEW: ListView = { status: '', sort: 'newest', query: '', page: 1, limit: 20 };
const viewKey = (pid: string) => `waitlist.entries.${pid}`;

/**
 * The view this tab last showed for the project, from sessionStorage (this browser tab only): the way
 * back from an entry's detail keeps it even when the detail page was reloaded in between.
 */
function savedView(pid: string): ListView {
  try {
    const v = JSON.parse(sessionStorage.getItem(viewKey(pid)) ?? 'null') as Partial<ListView> | null;
    if (!v || typeof v !== 'object') return DEFAULT_VIEW;
    return {
      status: STATUSES.includes(v.status as EntryStatusName) ? (v.status as EntryStatusName) : '',
      sort: v.sort === 'position' ? 'position' : 'newest',
      query: typeof v.query === 'string' ? v.query.slice(0, 200) : '',
      page: Number.isInteger(v.page) && v.page! >= 1 ? v.page! : 1,
      limit: SIZES.includes(v.limit!) ? v.limit! : 20,
    };
  } catch {
    return DEFAULT_VIEW; // storage off, or not JSON
  }
}

export function EntriesTab({ project, entryId }: { project: Project; entryId?: string | undefined }) {
  const pid = project.projectId;
  const [initial] = useState(() => savedView(pid));
  const [status, setStatus] = useState<EntryStatusName | ''>(initial.status);
  const [sort, setSort] = useState<Sort>(initial.sort);
  const [search, setSearch] = useState(initial.query); // what is typed
  const [query, setQuery] = useState(initial.query); // what is searched, 300 ms after typing stops
  const [page, setPage] = useState(initial.page);
  const [limit, setLimit] = useState(initial.limit);
  const [data, setData] = useState<Page<Entry> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  const [deleting, setDeleting] = useState<Entry | null>(null);
  const seq = useRef(0);

  const load = async () => {
    const mine = ++seq.current; // answers to older requests (typing fast) are dropped
    try {
      const d = await api.listEntries(pid, { page, limit, search: query || undefined, status: status || undefined, sort });
      if (mine !== seq.current) return;
      setError(null);
      // A page that emptied (last entry deleted) steps back to the last page that has rows.
      if (d.items.length === 0 && page > 1 && d.totalPages < page) return setPage(Math.max(1, d.totalPages));
      setData(d);
    } catch (e) {
      if (mine === seq.current) setError(e);
    }
  };
  // Reloads when coming back from an entry's detail too (it may have changed there).
  useEffect(() => void (entryId ? undefined : load()), [pid, page, limit, query, status, sort, entryId]);
  useEffect(() => {
    try {
      sessionStorage.setItem(viewKey(pid), JSON.stringify({ status, sort, query, page, limit } satisfies ListView));
    } catch {
      // storage off or full: the view is kept only while the tab stays open
    }
  }, [pid, page, limit, query, status, sort]);
  useEffect(() => {
    if (search.trim() === query) return; // nothing new typed (the restored search, on opening)
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

  const detailHref = (id: string) => `#/projects/${pid}/entries/${encodeURIComponent(id)}`;
  if (entryId) return <EntryDetail project={project} entryId={entryId} detailHref={detailHref} />;

  // The status named in the empty-list text ("No invited entry matches …"; position sort lists waiting ones).
  const what = status || (sort === 'position' ? 'waiting' : '');
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
          <label for="entry-status">Status</label>
          <select id="entry-status" value={status} onChange={(e) => (setStatus(e.currentTarget.value as EntryStatusName | ''), setPage(1))}>
            <option value="">all</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="entry-sort">Sort</label>
          <select id="entry-sort" value={sort} onChange={(e) => (setSort(e.currentTarget.value as Sort), setPage(1))}>
            <option value="newest">newest first</option>
            <option value="position">queue position</option>
          </select>
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
      {sort === 'position' ? (
        <p class="hint">Queue position lists the waiting entries in queue order (other statuses have no place in the queue).</p>
      ) : null}
      <ErrorMsg error={error} />
      <Notice text={notice} />
      <Loaded
        items={data && data.items}
        empty={
          query
            ? `No ${what} entry matches “${query}”.`.replace('No  ', 'No ')
            : status || sort === 'position'
              ? `No ${what} entries.`
              : 'No one has joined yet. The Install tab shows how to add a join form to your site.'
        }
      >
        {(rows) => (
          <Table
            class="entries"
            caption={`Waitlist entries${status ? ` (${status})` : ''}, ${sort === 'position' ? 'in queue order' : 'newest first'}`}
            rows={rows}
            rowKey={(e) => e.entryId}
            columns={[
              {
                label: 'Email',
                class: 'email',
                cell: (e) => (
                  <a href={detailHref(e.entryId)} aria-label={`Details of ${e.email}`}>
                    {e.email}
                  </a>
                ),
              },
              {
                label: 'Name',
                class: 'wrap',
                cell: (e) => <InlineRename label={`Name of ${e.email}`} value={e.name ?? ''} allowEmpty onSave={(n) => rename(e, n)} />,
              },
              { label: 'Source', class: 'wrap', cell: (e) => e.source },
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
