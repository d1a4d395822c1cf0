// Which network addresses a user-given URL may reach (decisions, Security): loopback, private,
// link-local and other non-public ranges are refused unless ALLOW_PRIVATE_URLS is set.
import { BlockList, isIP } from "node:net";

/** Why an address is not public, named so the refusal message tells the user what was hit. */
export type AddressKind = "loopback" | "private" | "link-local" | "unspecified" | "reserved";

// IANA special-purpose ranges that are not globally reachable (RFC 6890 and successors), by kind.
const RANGES: readonly [AddressKind, string, number, "ipv4" | "ipv6"][] = [
  ["unspecified", "0.0.0.0", 8, "ipv4"],
  ["private", "10.0.0.0", 8, "ipv4"],
  // Carrier-grade NAT: not the Internet, often a provider's internal network.
  ["private", "100.64.0.0", 10, "ipv4"],
  ["loopback", "127.0.0.0", 8, "ipv4"],
  // Includes 169.254.169.254, the cloud metadata endpoint.
  ["link-local", "169.254.0.0", 16, "ipv4"],
  ["private", "172.16.0.0", 12, "ipv4"],
  ["reserved", "192.0.0.0", 24, "ipv4"],
  ["reserved", "192.0.2.0", 24, "ipv4"],
  ["private", "192.168.0.0", 16, "ipv4"],
  ["reserved", "198.18.0.0", 15, "ipv4"],
  ["reserved", "198.51.100.0", 24, "ipv4"],
  ["reserved", "203.0.113.0", 24, "ipv4"],
  ["reserved", "224.0.0.0", 4, "ipv4"],
  ["reserved", "240.0.0.0", 4, "ipv4"],
  ["unspecified", "::", 128, "ipv6"],
  ["loopback", "::1", 128, "ipv6"],
  ["reserved", "64:ff9b:1::", 48, "ipv6"],
  ["reserved", "100::", 64, "ipv6"],
  ["reserved", "2001:db8::", 32, "ipv6"],
  ["private", "fc00::", 7, "ipv6"],
  ["link-local", "fe80::", 10, "ipv6"],
  ["private", "fec0::", 10, "ipv6"],
  ["reserved", "ff00::", 8, "ipv6"],
];

const LISTS = new Map<AddressKind, BlockList>();
for (const [kind, network, prefix, family] of RANGES) {
  let list = LISTS.get(kind);
  if (!list) LISTS.set(kind, (list = new BlockList()));
  list.addSubnet(network, prefix, family);
}

/** The IPv4 address embedded in an IPv4-mapped IPv6 address (`::ffff:a.b.c.d` / `::ffff:7f00:1`). */
function mappedIpv4(ip: string): string | null {
  const m = /^::ffff:(?:0:)?(.+)$/i.exec(ip);
  if (!m) return null;
  const rest = m[1]!;
  if (isIP(rest) === 4) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(rest);
  if (!hex) return null;
  const hi = parseInt(hex[1]!, 16);
  const lo = parseInt(hex[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** The kind of non-public range `ip` is in, or null for a public address (or not an address at all). */
export function nonPublicAddressKind(ip: string): AddressKind | null {
  const bare = ip.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family === 0) return null;
  // Check an IPv4-mapped IPv6 address as the IPv4 address it reaches.
  const v4 = family === 6 ? mappedIpv4(bare) : bare;
  const [address, type] = v4 !== null ? [v4, "ipv4" as const] : [bare, "ipv6" as const];
  for (const [kind, list] of LISTS) if (list.check(address, type)) return kind;
  return null;
}
