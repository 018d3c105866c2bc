// Who the client is: the socket peer, or with --trust-proxy the right-most X-Forwarded-For hop that
// is not a trusted proxy (proxy-addr walks the chain from the socket outwards).
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import proxyAddr from 'proxy-addr';

export type Trust = (addr: string, hop: number) => boolean;

/** Proxies trusted by a bare --trust-proxy: loopback and private networks. */
export const DEFAULT_TRUSTED = ['loopback', 'linklocal', 'uniquelocal'];

/** The trust function for --trust-proxy [list]; throws on a malformed address or CIDR. */
export function compileTrust(option: boolean | string[]): Trust | null {
  if (option === false) return null;
  return proxyAddr.compile(option === true || option.length === 0 ? DEFAULT_TRUSTED : option);
}

const unmap = (ip: string) => (ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip);

/** The client's IP address (IPv4-mapped IPv6 shown as IPv4), or null when the socket has none. */
export function clientIp(req: IncomingMessage, trust: Trust | null): string | null {
  const peer = req.socket.remoteAddress;
  if (!trust || !peer) return peer ? unmap(peer) : null;
  const chain = proxyAddr.all(req, trust); // socket peer first, ending at the first untrusted hop
  let ip = chain[chain.length - 1]!;
  // A hop that is not an address (garbage, or "ip:port") names nobody: keep the proxy that sent it.
  if (!isIP(ip)) ip = chain.length > 1 ? chain[chain.length - 2]! : peer;
  return unmap(ip);
}

/** Whether the request reached us over HTTPS: directly, or per X-Forwarded-Proto from a trusted proxy. */
export function isHttps(req: IncomingMessage, trust: Trust | null): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted) return true;
  const peer = req.socket.remoteAddress;
  if (!trust || !peer || !trust(peer, 0)) return false;
  const proto = req.headers['x-forwarded-proto'];
  return typeof proto === 'string' && proto.split(',', 1)[0]!.trim().toLowerCase() === 'https';
}
