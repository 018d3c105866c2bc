// Waitlist entries and stats of one of the user's projects (session).
//   GET    /api/project/:projectId/waitlist                listEntries
//   GET    /api/project/:projectId/waitlist/export         exportEntries
//   GET    /api/project/:projectId/waitlist/:entryId       getEntry
//   PUT    /api/project/:projectId/waitlist/:entryId       updateEntry
//   DELETE /api/project/:projectId/waitlist/:entryId       deleteEntry
//   GET    /api/project/:projectId/stats                   getStats
import type { Polka } from 'polka';
import { entryListQuery, exportQuery, updateEntryBody } from '../../contract/schemas.js';
import * as entries from '../../core/entries.js';
import { entryWithPosition, queuePage, withChunkPositions, withPositions } from '../../core/lifecycle.js';
import { getProject } from '../../core/projects.js';
import { featureSettings } from '../../core/settings.js';
import { toEntry, withDeletedAt } from '../../core/serialize.js';
import { userOf, type Deps, type Req } from '../context.js';
import { parseQuery, readJson, send } from '../http.js';
import { pageArgs, pageOf } from '../paging.js';
import { ENTRY_COLUMNS, streamExport } from '../export.js';

// Entry fields a PUT may not set (named in the 400 as "cannot be changed"): all but name and metadata.
const READ_ONLY = ENTRY_COLUMNS.filter((c) => c !== 'name' && c !== 'metadata');

export function entryRoutes(app: Polka<Req>, { store }: Deps) {
  const project = (req: Req) => getProject(store, userOf(req).id, req.params.projectId!);

  app.get('/api/project/:projectId/waitlist', async (req, res) => {
    const p = await project(req);
    const q = parseQuery(req, entryListQuery);
    const page: Awaited<ReturnType<typeof queuePage>> =
      q.status || q.sort === 'position'
        ? await queuePage(store, p.id, { status: q.status, sort: q.sort, search: q.search }, pageArgs(q))
        : await entries.listEntries(store, p.id, pageArgs(q), q.search);
    // A page in queue order comes with its positions; any other page asks for them.
    const items = page.positions
      ? page.rows.map((r) => toEntry(r, page.positions!.get(r.id) ?? null))
      : await withPositions(store, p.id, page.rows);
    send(res, 200, 'Waitlist entries', pageOf(items, q, page.total));
  });

  app.get('/api/project/:projectId/waitlist/export', async (req, res) => {
    const p = await project(req);
    const q = parseQuery(req, exportQuery);
    const fieldKeys = featureSettings(p).fields.map((f) => f.key);
    await streamExport(
      res,
      p.slug,
      q.format,
      withChunkPositions(store, p.id, entries.iterateEntryChunks(store, p.id, q.search), q.search),
      fieldKeys,
    );
  });

  app.get('/api/project/:projectId/waitlist/:entryId', async (req, res) => {
    const p = await project(req);
    send(res, 200, 'Waitlist entry', await entryWithPosition(store, await entries.getEntry(store, p.id, req.params.entryId!)));
  });

  app.put('/api/project/:projectId/waitlist/:entryId', async (req, res) => {
    const p = await project(req);
    await entries.getEntry(store, p.id, req.params.entryId!);
    const body = await readJson(req, updateEntryBody, READ_ONLY);
    send(
      res,
      200,
      'Waitlist entry updated',
      await entryWithPosition(store, await entries.updateEntry(store, p.id, req.params.entryId!, body)),
    );
  });

  app.delete('/api/project/:projectId/waitlist/:entryId', async (req, res) => {
    const p = await project(req);
    const e = await entries.deleteEntry(store, p.id, req.params.entryId!, p);
    send(res, 200, 'Waitlist entry deleted', withDeletedAt(toEntry(e), e.deletedAt));
  });

  app.get('/api/project/:projectId/stats', async (req, res) => {
    const p = await project(req);
    send(res, 200, 'Project stats', await entries.projectStats(store, p.id));
  });
}
