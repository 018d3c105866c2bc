// What text may be stored: the join's body checks (src/server/params.ts, http.ts) and the import's rows
// (src/core/import/rows.ts) refuse the same things.

// With the u flag a surrogate pair is one code point, so this matches only unpaired surrogates.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** True for well-formed UTF-16 (no unpaired surrogate). */
export const wellFormed = (s: string) => !LONE_SURROGATE.test(s);
/** True for text that may be stored: well-formed UTF-16 without NUL. */
export const storableText = (s: string) => !s.includes('\0') && wellFormed(s);

/** The dotted paths of every string (keys included) in a JSON value that holds an unpaired surrogate. */
export function lonePaths(value: unknown, path = '', out: string[] = [], depth = 0): string[] {
  if (depth > 64) return out;
  if (typeof value === 'string') {
    if (!wellFormed(value)) out.push(path);
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) lonePaths(v, path ? `${path}.${i}` : String(i), out, depth + 1);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const p = path ? `${path}.${k}` : k;
      if (!wellFormed(k)) out.push(path || '?');
      else lonePaths(v, p, out, depth + 1);
    }
  }
  return out;
}
