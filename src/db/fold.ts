// The one case-folding rule of entry search, shared by both databases: a substring matches when it
// matches after each code point is lower-cased on its own (a lower case that would take several code
// points, like İ → i̇, leaves the character as it is). SQLite's FTS5 trigram index folds this way;
// PostgreSQL's lower() differs only for İ (→ i), which src/db/pg/store.ts corrects.

/** The search fold of one code point. */
export function foldChar(c: string): string {
  const l = c.toLowerCase();
  return [...l].length === 1 ? l : c;
}

/** The search fold of a string, code point by code point. */
export const fold = (s: string) => [...s].map(foldChar).join('');

let inverse: Map<string, string[]> | undefined;
/** Every non-ASCII code point whose fold is `folded` (e.g. "k" → K the Kelvin sign), built on first use. */
export function unfold(folded: string): string[] {
  if (!inverse) {
    inverse = new Map();
    for (let cp = 0x80; cp <= 0x1ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      const f = foldChar(c);
      if (f === c) continue;
      const list = inverse.get(f);
      if (list) list.push(c);
      else inverse.set(f, [c]);
    }
  }
  return inverse.get(folded) ?? [];
}
