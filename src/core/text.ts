// What text may be stored: the join's body checks (src/server/params.ts, http.ts) and the import's rows
// (src/core/import/rows.ts) refuse the same things.

// With the u flag a surrogate pair is one code point, so this matches only unpaired surrogates.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** True for well-formed UTF-16 (no unpaired surrogate). */
export const wellFormed = (s: string) => !LONE_SURROGATE.test(s);
/** True for text that may be stored: well-formed UTF-16 without NUL. */
export const storableText = (s: string) => !s.includes('\0') && wellFormed(s);

/**
 * The dotted paths of the strings (keys included) in a JSON body that cannot be stored as they are:
 * `nul`, a NUL character (text columns cannot hold one: PostgreSQL refuses it), except under the
 * top-level keys in `nulKept`, whose values are stored as escaped JSON (a join's `metadata`); `lone`, an
 * unpaired surrogate anywhere (it would be stored as U+FFFD or as invalid bytes). A key's problem is
 * reported at its object's path (`?` at the top). Paths start under `path`.
 */
export function unstorablePaths(value: unknown, nulKept: readonly string[] = [], path = ''): { nul: string[]; lone: string[] } {
  const out = { nul: [] as string[], lone: [] as string[] };
  const walk = (v: unknown, path: string, nulOk: boolean, depth: number) => {
    if (depth > 64) return;
    if (typeof v === 'string') {
      if (!nulOk && v.includes('\0')) out.nul.push(path);
      if (!wellFormed(v)) out.lone.push(path);
    } else if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) walk(x, path ? `${path}.${i}` : String(i), nulOk, depth + 1);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        const ok = nulOk || (depth === 0 && nulKept.includes(k));
        if (!wellFormed(k)) {
          out.lone.push(path || '?');
          continue;
        }
        if (!nulOk && k.includes('\0')) out.nul.push(path || '?');
        walk(x, path ? `${path}.${k}` : k, ok, depth + 1);
      }
    }
  };
  walk(value, path, false, 0);
  return out;
}

/** The dotted paths (under `path`) of every string, keys included, in a JSON value that holds an unpaired surrogate. */
export const lonePaths = (value: unknown, path = ''): string[] => unstorablePaths(value, [], path).lone;
