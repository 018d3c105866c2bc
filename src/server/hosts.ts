// Which Host names this server answers to on /api, so a DNS-rebinding page (whose own name now points
// at this server) cannot pass the Origin check by sending a matching Host. Rebinding needs a DNS name
// the attacker controls, so these are always accepted: an IP address literal (any port) and
// `localhost`, which browsers never resolve through DNS. A name is accepted only when configured:
// - the host of --public-url (WAITLIST_PUBLIC_URL);
// - each entry of --allowed-hosts (WAITLIST_ALLOWED_HOSTS): `name` (any port) or `name:port`.
// A request without a Host header (HTTP/1.0) is let through: browsers always send one.
import { isIP } from 'node:net';

/** Splits `name[:port]` (IPv6 in brackets) into a lower-case name and a port (undefined when absent). */
export function splitHost(value: string): { name: string; port: number | undefined } | undefined {
  // A DNS name (letters, digits, hyphens, dots, underscores), an IPv4 address or a bracketed IPv6 one.
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_.])?)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!m) return undefined;
  return { name: m[1]!.toLowerCase().replace(/\.$/, ''), port: m[2] === undefined ? undefined : Number(m[2]) };
}

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

  /** Turns the check on once the server listens (apps mounted directly by tests accept every Host). */
  bind(): void {
    this.bound = true;
  }

  /** Whether a request's Host header names this server. */
  allows(host: string | undefined): boolean {
    if (!this.bound || host === undefined) return true;
    const h = splitHost(host);
    if (!h) return false;
    if (h.name === 'localhost' || isIP(h.name.replace(/^\[|\]$/g, '')) !== 0) return true;
    if (this.anyPort.has(h.name)) return true;
    return this.exact.has(h.port === undefined ? h.name : `${h.name}:${h.port}`);
  }
}
