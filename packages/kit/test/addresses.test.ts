// The one address list of the SSRF guard: every range it refuses, by literal and as a resolved
// address, including the IPv6 forms that carry an IPv4 address (issue 15.12 found some slipping by).
import { describe, expect, it } from "vitest";
import { embeddedIpv4, ipv6Bytes, nonPublicAddressKind } from "../src/http/addresses";
import { createHttpClient, HttpError, type Resolver } from "../src/http/client";

/** One address inside every refused range, with the kind it is refused as. */
const REFUSED: [string, string][] = [
  ["0.1.2.3", "unspecified"],
  ["10.1.2.3", "private"],
  ["100.64.0.1", "private"],
  ["100.127.255.254", "private"],
  ["127.0.0.1", "loopback"],
  ["127.255.0.9", "loopback"],
  ["169.254.169.254", "link-local"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.0.0.8", "reserved"],
  ["192.0.2.10", "reserved"],
  ["192.88.99.1", "reserved"],
  ["192.168.1.1", "private"],
  ["198.18.0.1", "reserved"],
  ["198.19.255.1", "reserved"],
  ["198.51.100.7", "reserved"],
  ["203.0.113.9", "reserved"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "reserved"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["64:ff9b:1::1", "reserved"],
  ["100::1", "reserved"],
  ["2001::1", "reserved"],
  ["2001:db8::1", "reserved"],
  ["fc00::1", "private"],
  ["fd12:3456::1", "private"],
  ["fe80::1", "link-local"],
  ["fec0::1", "private"],
  ["feff::1", "private"],
  ["ff02::1", "multicast"],
  // IPv4 inside IPv6: judged by the IPv4 address reached.
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:a9fe:a9fe", "link-local"],
  ["::ffff:0:127.0.0.1", "loopback"],
  ["::ffff:0:a00:1", "private"],
  ["::127.0.0.1", "loopback"],
  ["::a00:1", "private"],
  ["::169.254.169.254", "link-local"],
  ["64:ff9b::10.0.0.1", "private"],
  ["64:ff9b::7f00:1", "loopback"],
  ["64:ff9b::a9fe:a9fe", "link-local"],
  ["2002:7f00:1::", "loopback"],
  ["2002:a00:1::1", "private"],
  ["2002:a9fe:a9fe:1::5", "link-local"],
];

const PUBLIC = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.216.34",
  "172.32.0.1",
  "100.128.0.1",
  "2606:4700:4700::1111",
  "::ffff:8.8.8.8",
  "64:ff9b::808:808",
  "2002:808:808::1",
  "2a00:1450:4001::200e",
];

describe("the address list", () => {
  it.each(REFUSED)("%s is %s", (ip, kind) => expect(nonPublicAddressKind(ip)).toBe(kind));
  it.each(PUBLIC)("%s is public", (ip) => expect(nonPublicAddressKind(ip)).toBeNull());

  it("reads bracketed and zoned literals", () => {
    expect(nonPublicAddressKind("[::1]")).toBe("loopback");
    expect(nonPublicAddressKind("fe80::1%eth0")).toBe("link-local");
  });

  it("is no address at all for names", () => {
    expect(nonPublicAddressKind("localhost")).toBeNull();
    expect(nonPublicAddressKind("")).toBeNull();
  });

  it("expands IPv6 text to its bytes and finds the IPv4 inside", () => {
    expect([...ipv6Bytes("::ffff:1.2.3.4")]).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 1, 2, 3, 4]);
    expect([...ipv6Bytes("2001:db8::1")]).toEqual([32, 1, 13, 184, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect([...ipv6Bytes("1:2:3:4:5:6:7:8")]).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]);
    expect(embeddedIpv4(ipv6Bytes("2002:c000:204::"))).toBe("192.0.2.4");
    expect(embeddedIpv4(ipv6Bytes("2606:4700::1"))).toBeNull();
  });
});

describe("the guard refuses every range by literal and by resolved address", () => {
  // Every made-up name resolves to the address it names: "a-<ip with - for . and :>.test".
  const resolve: Resolver = (hostname, _options, callback) => {
    const entry = REFUSED.find(([ip]) => hostname === nameOf(ip));
    if (!entry) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), []);
    callback(null, [{ address: entry[0], family: entry[0].includes(":") ? 6 : 4 }]);
  };
  const nameOf = (ip: string) => `a-${ip.replace(/[.:]/g, "-")}.test`;
  const http = createHttpClient({ guard: { allowPrivate: false, resolve }, timeoutMs: 2000 });

  async function refusal(url: string): Promise<HttpError> {
    const e = await http.request(url).then(
      () => null,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(HttpError);
    return e as HttpError;
  }

  it.each(REFUSED)("%s (%s)", async (ip, kind) => {
    const literal = await refusal(`http://${ip.includes(":") ? `[${ip}]` : ip}:9/`);
    expect(literal.code).toBe("blocked_address");
    expect(literal.details.addressKind).toBe(kind);
    const resolved = await refusal(`http://${nameOf(ip)}:9/`);
    expect(resolved.code).toBe("blocked_address");
    expect(resolved.details).toMatchObject({ host: nameOf(ip), address: ip, addressKind: kind });
    expect(resolved.message).toContain(`${nameOf(ip)} (${ip}): ${kind} address`);
  });
});
