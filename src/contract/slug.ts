// Slug rules, shared by the server (validation, derivation) and the dashboard (live preview).
// Pure: no imports, so the browser bundle can take it as it is.

export const SLUG_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** A slug derived from a project name: lower-case ASCII words joined by single hyphens, ≤ 48 chars. */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
}
