// Which network addresses a user-given URL may reach (decisions, Security): loopback, private,
// link-local and other non-public ranges are refused unless ALLOW_PRIVATE_URLS is set. The one list
// of the SSRF guard: IPv6 forms that carry an IPv4 address are judged by the IPv4 address they reach.
import { BlockList, isIP } from "node:net";

/** Why an address is not public, named so the refusal message tells the user what was hit. */
export type AddressKind = "loopback" | "private" | "link-local" | "unspecified" | "multicast" | "reserved";

// IANA special-purpose ranges that are not globally reachable (RFC 6890 and successors), by kind.
const IPV4: readonly [AddressKind, string, number][] = [
  ["unspecified", "0.0.0.0", 8],
  ["private", "10.0.0.0", 8],
  // Carrier-grade NAT: not the Internet, often a provider's internal network.
  ["private", "100.64.0.0", 10],
  ["loopback", "127.0.0.0", 8],
  // Includes 169.254.169.254, the cloud metadata endpoint.
  ["link-local", "169.254.0.0", 16],
  ["private", "172.16.0.0", 12],
  ["reserved", "192.0.0.0", 24],
  ["reserved", "192.0.2.0", 24],
  // The 6to4 relay anycast prefix (deprecated, RFC 7526).
  ["reserved", "192.88.99.0", 24],
  ["private", "192.168.0.0", 16],
  ["reserved", "198.18.0.0", 15],
  ["reserved", "198.51.100.0", 24],
  ["reserved", "203.0.113.0", 24],
  ["multicast", "224.0.0.0", 4],
  // Includes the broadcast address 255.255.255.255.
  ["reserved", "240.0.0.0", 4],
];

const IPV6: readonly [AddressKind, string, number][] = [
  ["unspecified", "::", 128],
  ["loopback", "::1", 128],
  // Local-use NAT64 (RFC 8215): translated by a network's own gateway, so internal by definition.
  ["reserved", "64:ff9b:1::", 48],
  ["reserved", "100::", 64],
  // Teredo tunnels reach IPv4 hosts through relays the guard cannot see into.
  ["reserved", "2001::", 32],
  ["reserved", "2001:db8::", 32],
  ["private", "fc00::", 7],
  ["link-local", "fe80::", 10],
  // Site-local (deprecated, RFC 3879) is still routed inside some networks.
  ["private", "fec0::", 10],
  ["multicast", "ff00::", 8],
];

function listsOf(ranges: readonly [AddressKind, string, number][], family: "ipv4" | "ipv6"): [AddressKind, BlockList][] {
  const lists = new Map<AddressKind, BlockList>();
  for (const [kind, network, prefix] of ranges) {
    let list = lists.get(kind);
    if (!list) lists.set(kind, (list = new BlockList()));
    list.addSubnet(network, prefix, family);
  }
  return [...lists];
}
const V4_LISTS = listsOf(IPV4, "ipv4");
const V6_LISTS = listsOf(IPV6, "ipv6");

/** The 16 bytes of a valid IPv6 address (`::` shorthand and a dotted IPv4 tail expanded). */
export function ipv6Bytes(ip: string): Uint8Array {
  let text = ip;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".", lastColon)) {
    tail.push(
      ...text
        .slice(lastColon + 1)
        .split(".")
        .map(Number),
    );
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [left, right] = text.split("::") as [string, string | undefined];
  const head = left === "" ? [] : left.split(":");
  const rest = right === undefined ? [] : right === "" ? [] : right.split(":");
  const groups = right === undefined ? head : [...head, ...new Array<string>(8 - head.length - rest.length).fill("0"), ...rest];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    const v = Number.parseInt(g, 16);
    bytes[2 * i] = v >> 8;
    bytes[2 * i + 1] = v & 255;
  });
  if (tail.length === 4) bytes.set(tail, 12);
  return bytes;
}

const zero = (b: Uint8Array, from: number, to: number) => b.subarray(from, to).every((x) => x === 0);
const dotted = (b: Uint8Array, at: number) => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;

/**
 * The IPv4 address an IPv6 address carries and reaches: IPv4-mapped `::ffff:a.b.c.d`,
 * IPv4-translated `::ffff:0:a.b.c.d` (SIIT), IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`
 * and 6to4 `2002:AABB:CCDD::/48`. Null for any other address.
 */
export function embeddedIpv4(b: Uint8Array): string | null {
  if (zero(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return dotted(b, 12);
  if (zero(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zero(b, 10, 12)) return dotted(b, 12);
  if (zero(b, 0, 12)) return dotted(b, 12);
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(b, 4, 12)) return dotted(b, 12);
  if (b[0] === 0x20 && b[1] === 0x02) return dotted(b, 2);
  return null;
}

function kindIn(lists: [AddressKind, BlockList][], address: string, family: "ipv4" | "ipv6"): AddressKind | null {
  for (const [kind, list] of lists) if (list.check(address, family)) return kind;
  return null;
}

/** The kind of non-public range `ip` is in, or null for a public address (or not an address at all). */
export function nonPublicAddressKind(ip: string): AddressKind | null {
  const bare = ip.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return kindIn(V4_LISTS, bare, "ipv4");
  if (family !== 6) return null;
  // `::` and `::1` first: they are inside the IPv4-compatible block but are not IPv4 addresses.
  const exact = kindIn(V6_LISTS, bare, "ipv6");
  if (exact === "unspecified" || exact === "loopback") return exact;
  const v4 = embeddedIpv4(ipv6Bytes(bare));
  if (v4 !== null) return kindIn(V4_LISTS, v4, "ipv4");
  return exact;
}
