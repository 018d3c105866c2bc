// Which Host names this server answers to on /api, so a DNS-rebinding page (whose own name now points
// at this server) cannot pass the Origin check by sending a matching Host. Allowed:
// - the address the server is bound to (and localhost/loopback when bound to loopback or a wildcard;
//   with a wildcard bind, also every address of this machine's interfaces), on the bound port;
// - the host of --public-url (WAITLIST_PUBLIC_URL);
// - each entry of --allowed-hosts (WAITLIST_ALLOWED_HOSTS): `name` (any port) or `name:port`.
// A request without a Host header (HTTP/1.0) is let through: browsers always send one.
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/** Splits `name[:port]` (IPv6 in brackets) into a lower-case name and a port (undefined when absent). */
export function splitHost(value: string): { name: string; port: number | undefined } | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!m) return undefined;
  return { name: m[1]!.toLowerCase().replace(/\.$/, ''), port: m[2] === undefined ? undefined : Number(m[2]) };
}

const bracket = (ip: string) => (isIP(ip) === 6 ? `[${ip.toLowerCase()}]` : ip);

export class HostPolicy {
  private readonly anyPort = new Set<string>();
  private readonly exact = new Set<string>();
  private bound = false;
  /** The origin of --public-url, also accepted as a request's Origin (a proxy may rewrite Host). */
  readonly publicOrigin: string | undefined;

  constructor(opts: { publicUrl?: string | undefined; allowedHosts?: string[] | undefined } = {}) {
    if (opts.publicUrl) {
      const u = new URL(opts.publicUrl);
      this.publicOrigin = u.origin.toLowerCase();
      this.exact.add(u.host.toLowerCase());
      const defaultPort = u.protocol === 'https:' ? '443' : '80';
      if (!u.port) this.exact.add(`${u.hostname.toLowerCase()}:${defaultPort}`);
    }
    for (const entry of opts.allowedHosts ?? []) {
      const h = splitHost(entry);
      if (!h) throw new Error(`not a host name or host:port: ${entry}`);
      if (h.port === undefined) this.anyPort.add(h.name);
      else this.exact.add(`${h.name}:${h.port}`);
    }
  }

  /** Records the address the server listens on; until then every Host is accepted (apps mounted by tests). */
  bind(address: string, port: number): void {
    this.bound = true;
    const names = new Set<string>();
    const wildcard = address === '0.0.0.0' || address === '::';
    const loopback = address === '::1' || address.startsWith('127.');
    if (wildcard || loopback) for (const n of LOOPBACK) names.add(n);
    if (!wildcard) names.add(bracket(address.replace(/^::ffff:/, '')));
    if (wildcard) {
      for (const list of Object.values(networkInterfaces())) {
        for (const i of list ?? []) names.add(bracket(i.address.replace(/%.*$/, '')));
      }
    }
    for (const n of names) {
      this.exact.add(`${n}:${port}`);
      if (port === 80) this.exact.add(n);
    }
  }

  /** Whether a request's Host header names this server. */
  allows(host: string | undefined): boolean {
    if (!this.bound || host === undefined) return true;
    const h = splitHost(host);
    if (!h) return false;
    if (this.anyPort.has(h.name)) return true;
    return this.exact.has(h.port === undefined ? h.name : `${h.name}:${h.port}`);
  }
}
