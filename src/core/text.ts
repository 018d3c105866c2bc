// What text may be stored: the join's body checks (src/server/params.ts, http.ts) and the import's rows
// (src/core/import/rows.ts) refuse the same things.

// With the u flag a surrogate pair is one code point, so this matches only unpaired surrogates.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** True for well-formed UTF-16 (no unpaired surrogate). */
export const wellFormed = (s: string) => !LONE_SURROGATE.test(s);
/** True for text that may be stored: well-formed UTF-16 without NUL. */
export const storableText = (s: string) => !s.includes('\0') && wellFormed(s);
