// SSRF protection for webhook URLs. A webhook may only reach public addresses unless the server runs
// with --allow-private-webhooks. The check runs when a webhook is saved and again at every send, on
// the addresses DNS answers then; the request then connects to the address that was checked (a custom
// `lookup`), so a second DNS answer (rebinding) cannot swap in a private address.
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  blocked.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 96], // unspecified, loopback, and IPv4-compatible (deprecated; `::127.0.0.1` embeds IPv4)
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT; `::ffff:0:7f00:1` embeds IPv4)
  ['64:ff9b::', 96], // NAT64 (embeds IPv4)
  ['64:ff9b:1::', 48], // local-use NAT64 (embeds IPv4)
  ['2001::', 32], // Teredo (embeds an obfuscated IPv4 address)
  ['2002::', 16], // 6to4 (embeds IPv4: `2002:7f00:1::` is 127.0.0.1's)
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  blocked.addSubnet(net, bits, 'ipv6');

/** True when `ip` is loopback, private, link-local, unique-local, multicast or otherwise not public. */
export function isPrivateAddress(ip: string): boolean {
  const v = isIP(ip);
  if (v === 4) return blocked.check(ip, 'ipv4');
  if (v !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip); // IPv4-mapped IPv6
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  return blocked.check(ip, 'ipv6');
}

export class BlockedAddressError extends Error {}

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

/** Resolves the URL's host and checks every answer; throws BlockedAddressError when one is not public. */
export async function resolveTarget(url: URL, allowPrivate: boolean): Promise<ResolvedTarget> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const answers = isIP(host)
    ? [{ address: host, family: isIP(host) as 4 | 6 }]
    : ((await dnsLookup(host, { all: true, verbatim: true })) as ResolvedTarget[]);
  if (!answers.length) throw new Error(`${host} has no address`);
  if (!allowPrivate) {
    const bad = answers.find((a) => isPrivateAddress(a.address));
    if (bad) {
      throw new BlockedAddressError(
        `${host} resolves to ${bad.address}, a private, loopback or link-local address (allowed only with --allow-private-webhooks)`,
      );
    }
  }
  return answers[0]!;
}

/** resolveTarget bounded by `ms`: null when the resolver has not answered by then (a refusal still throws). */
export async function resolveWithin(url: URL, allowPrivate: boolean, ms: number): Promise<ResolvedTarget | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)));
  return Promise.race([resolveTarget(url, allowPrivate), late]).finally(() => clearTimeout(timer));
}

/** A `lookup` for http.request that answers the address already checked, never asking DNS again. */
export function pinnedLookup(target: ResolvedTarget) {
  return (_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all) cb(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
}

/** The reason a webhook URL is unacceptable when saved, or null. DNS failures are left to send time. */
export async function webhookUrlProblem(raw: string, allowPrivate: boolean): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute http(s) URL, like https://example.com/hooks/waitlist';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'url must use http or https';
  if (url.username || url.password) return 'url must not contain credentials';
  if (url.port === '0') return 'url must not use port 0';
  if (allowPrivate) return null;
  const name = url.hostname.replace(/\.$/, ''); // `localhost.` is the same name, fully qualified
  if (name === 'localhost' || name.endsWith('.localhost')) {
    return 'url points to a loopback address (allowed only with --allow-private-webhooks)';
  }
  try {
    // Bounded: a slow resolver must not hold the request (an unresolved name is checked again at send time).
    await resolveWithin(url, false, 3000);
  } catch (err) {
    if (err instanceof BlockedAddressError) return `url host ${err.message}`;
  }
  return null;
}
