// The client's address for per-client limits: the socket's peer, unless that peer is a trusted proxy,
// in which case X-Forwarded-For is read from the right, skipping trusted hops. A client can put
// anything at the left of that header, so only entries appended by trusted proxies are believed.
import { BlockList, isIP } from "node:net";
import type { Context } from "hono";
import { csv } from "../config";

export interface TrustedProxies {
  has(address: string): boolean;
}

/** `value` is already validated by the config schema (IPs and CIDRs, comma-separated). */
export function trustedProxies(value: string): TrustedProxies {
  const list = new BlockList();
  const entries = csv(value);
  for (const entry of entries) {
    const [address, bits] = entry.split("/") as [string, string | undefined];
    const type = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return {
    has(address) {
      if (entries.length === 0) return false;
      const a = normalize(address);
      const family = isIP(a);
      return family !== 0 && list.check(a, family === 6 ? "ipv6" : "ipv4");
    },
  };
}

/** IPv4 peers of a dual-stack socket show up as `::ffff:a.b.c.d`. */
function normalize(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

export function clientAddress(socketAddress: string | undefined, forwardedFor: string | undefined, trusted: TrustedProxies): string {
  if (!socketAddress) return "unknown";
  let client = normalize(socketAddress);
  if (!trusted.has(client) || !forwardedFor) return client;
  const hops = forwardedFor.split(",").map((h) => normalize(h.trim()));
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    // A malformed entry cannot be a trusted proxy's doing: stop at the last address we could believe.
    if (isIP(hop) === 0) return client;
    client = hop;
    if (!trusted.has(hop)) return hop;
  }
  return client;
}

/**
 * The rate-limit bucket of an address: IPv6 clients by their /64 (one host usually holds a whole
 * /64, so per-address buckets would let it rotate through billions), IPv4 by the address.
 */
export function rateLimitKey(address: string): string {
  const plain = address.split("%")[0]!;
  if (isIP(plain) !== 6) return address;
  const [head = "", tail] = plain.toLowerCase().split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  // An embedded IPv4 tail (64:ff9b::1.2.3.4) is two groups wide.
  const width = (gs: string[]) => gs.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - width(left) - width(right)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** The client address of a request on the Node server (socket peer, or X-Forwarded-For from trusted proxies). */
export function requestClientAddress(c: Context, trusted: TrustedProxies): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return clientAddress(env?.incoming?.socket?.remoteAddress, c.req.header("x-forwarded-for"), trusted);
}
