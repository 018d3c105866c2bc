// Dates in imported files. Accepted without asking: ISO 8601 (`2025-03-01T12:41:03Z`, offsets, no zone
// = UTC), `YYYY-MM-DD HH:MM[:SS[.ffffff]]` (UTC), `YYYY-MM-DD`, and Unix epochs (10 digits: seconds,
// 13: milliseconds). Slash dates (`15/03/2025 08:02`) are day-first in most of the world and month-first
// in the US: the import never guesses. With `dateFormat=dmy|mdy` the caller says which; with `auto`
// (the default) the file settles it: the first slash date whose day or month is above 12 decides for the
// whole file, and the result reports the format used. Slash dates the file never settles are refused
// row by row, naming the option to pass.

export type DateFormat = 'auto' | 'dmy' | 'mdy';
export type SlashOrder = 'dmy' | 'mdy';

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|[+-]\d{2}:?\d{2}|UTC)?)?$/i;
const SLASH = /^(\d{1,2})[/.](\d{1,2})[/.](\d{4})(?:[ T,]+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(am|pm)?)?$/i;
const EPOCH = /^\d{10}(\d{3})?$/;

function utc(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number | undefined {
  const t = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const back = new Date(t);
  // Date.UTC rolls 31/02 over into March: refuse instead.
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59)
    return undefined;
  return t;
}

/** For a slash date, which orders it can be read in. */
export function slashOrders(text: string): SlashOrder[] | undefined {
  const m = SLASH.exec(text.trim());
  if (!m) return undefined;
  const a = Number(m[1]);
  const b = Number(m[2]);
  const out: SlashOrder[] = [];
  if (a >= 1 && a <= 31 && b >= 1 && b <= 12) out.push('dmy');
  if (a >= 1 && a <= 12 && b >= 1 && b <= 31) out.push('mdy');
  return out;
}

export type DateResult = { ms: number } | { error: string };

/** Parses an imported date; `order` is the settled slash-date order, if any. */
export function parseDate(text: string, order: SlashOrder | null): DateResult {
  const v = text.trim();
  if (EPOCH.test(v)) return { ms: v.length === 10 ? Number(v) * 1000 : Number(v) };
  let m = ISO.exec(v);
  if (m) {
    const frac = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
    let t = utc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), frac);
    if (t === undefined) return { error: `"${v}" is not a real date` };
    const zone = m[8];
    if (zone && !/^(z|utc)$/i.test(zone)) {
      const z = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
      t -= (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3])) * 60_000;
    }
    return { ms: t };
  }
  m = SLASH.exec(v);
  if (m) {
    if (!order) return { error: `"${v}" could be day/month or month/day: pass dateFormat=dmy or dateFormat=mdy (CLI: --date-format)` };
    const [d, mo] = order === 'dmy' ? [Number(m[1]), Number(m[2])] : [Number(m[2]), Number(m[1])];
    let h = Number(m[4] ?? 0);
    const ampm = m[7]?.toLowerCase();
    if (ampm) {
      if (h < 1 || h > 12) return { error: `"${v}" has an impossible hour` };
      h = (h % 12) + (ampm === 'pm' ? 12 : 0);
    }
    const t = utc(Number(m[3]), mo, d, h, Number(m[5] ?? 0), Number(m[6] ?? 0));
    if (t === undefined) return { error: `"${v}" is not a valid ${order === 'dmy' ? 'DD/MM/YYYY' : 'MM/DD/YYYY'} date` };
    return { ms: t };
  }
  return {
    error: `"${v.slice(0, 40)}" is not a date this import reads (ISO 8601, YYYY-MM-DD HH:MM:SS, DD/MM/YYYY or MM/DD/YYYY, Unix time)`,
  };
}
