// Projects: one waitlist each, owned by one user, addressed by id or by a server-unique slug.
import type { CreateProjectBody } from '../contract/schemas.js';
import { SLUG_RE, slugify } from '../contract/slug.js';
import type { PageArgs, ProjectRow, Store } from '../db/store.js';
import { randomToken } from './crypto.js';
import { AppError, notFound } from './errors.js';
import { newId } from './ids.js';

function randomSuffix(): string {
  return (
    randomToken(6)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')
      .slice(0, 4) || 'x1y2'
  );
}

/** Candidate slugs for a name when none was given: `my-app`, then `my-app-2` … then random. */
function* derivedSlugs(name: string): Generator<string> {
  let base = slugify(name);
  if (base.length < 3) base = base ? `${base}-${randomSuffix()}` : `project-${randomSuffix()}`;
  yield base;
  for (let n = 2; n <= 20; n++) yield `${base.slice(0, 48 - String(n).length - 1).replace(/-+$/, '')}-${n}`;
  for (;;) yield `${base.slice(0, 43).replace(/-+$/, '')}-${randomSuffix()}`;
}

/** Creates a project; an explicit slug that is taken answers 409, a derived one gets a suffix. */
export async function createProject(store: Store, userId: string, body: CreateProjectBody): Promise<ProjectRow> {
  const now = Date.now();
  const row: ProjectRow = {
    id: newId('prj'),
    userId,
    name: body.name,
    slug: '',
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
    allowedOrigins: null,
    blockDisposable: false,
    honeypotField: null,
    settings: '{}',
  };
  if (body.slug) {
    row.slug = body.slug;
    if ((await store.insertProject(row)) === 'duplicate') {
      throw new AppError('slug_taken', `The slug "${body.slug}" is already taken`);
    }
    return row;
  }
  for (const slug of derivedSlugs(body.name)) {
    if (!SLUG_RE.test(slug)) continue;
    row.slug = slug;
    if ((await store.insertProject(row)) === 'inserted') return row;
  }
  throw new Error('unreachable: derived slugs never run out');
}

/** The live project a join addresses by slug (any owner); undefined when unknown or soft-deleted. */
export const projectForJoin = (store: Store, slug: string): Promise<ProjectRow | undefined> => store.projectBySlug(slug);

export const listProjects = (store: Store, userId: string, page: PageArgs) => store.listProjects(userId, page);

/** The user's live project by id or slug; another user's or a deleted one is 404. */
export async function getProject(store: Store, userId: string, idOrSlug: string): Promise<ProjectRow> {
  const p = await store.projectForUser(userId, idOrSlug);
  if (!p) throw notFound('Project');
  return p;
}

export async function renameProject(store: Store, userId: string, idOrSlug: string, name: string) {
  const p = await getProject(store, userId, idOrSlug);
  const updated = await store.renameProject(p.id, name, Date.now());
  if (!updated) throw notFound('Project');
  return updated;
}

export async function deleteProject(store: Store, userId: string, idOrSlug: string) {
  const p = await getProject(store, userId, idOrSlug);
  const deleted = await store.softDeleteProject(p.id, Date.now());
  if (!deleted) throw notFound('Project');
  return deleted;
}

/** Operator command: undoes a soft delete, bringing back the project's keys and entries. */
export async function restoreProject(store: Store, projectId: string) {
  const p = await store.projectByIdAny(projectId);
  if (!p) throw notFound('Project');
  if (p.deletedAt === null) return p;
  const restored = await store.restoreProject(p.id, Date.now());
  if (!restored) throw notFound('Project');
  return restored;
}
