// Client address for per-client limits: X-Forwarded-For is believed only from trusted proxies.
import { describe, expect, it } from "vitest";
import { clientAddress, rateLimitKey, trustedProxies } from "../src/auth/client-address";

describe("client address", () => {
  const none = trustedProxies("");
  const proxies = trustedProxies("10.0.0.0/8, 127.0.0.1, fd00::/8");

  it("is the socket peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(clientAddress("203.0.113.9", "198.51.100.1", none)).toBe("203.0.113.9");
    expect(clientAddress("127.0.0.1", "198.51.100.1", none)).toBe("127.0.0.1");
  });

  it("is the socket peer when that peer is not a trusted proxy", () => {
    expect(clientAddress("203.0.113.9", "198.51.100.1", proxies)).toBe("203.0.113.9");
  });

  it("takes the rightmost untrusted hop behind trusted proxies (a client cannot spoof by prepending)", () => {
    expect(clientAddress("127.0.0.1", "198.51.100.1", proxies)).toBe("198.51.100.1");
    expect(clientAddress("10.1.2.3", "6.6.6.6, 198.51.100.1, 10.9.9.9", proxies)).toBe("198.51.100.1");
  });

  it("normalises IPv4-mapped IPv6 peers and understands IPv6 proxies", () => {
    expect(clientAddress("::ffff:127.0.0.1", "198.51.100.7", proxies)).toBe("198.51.100.7");
    expect(clientAddress("fd00::1", "2001:db8::5", proxies)).toBe("2001:db8::5");
  });

  it("stops at a malformed hop and keeps the last address it could believe", () => {
    expect(clientAddress("10.0.0.1", "not-an-ip", proxies)).toBe("10.0.0.1");
    expect(clientAddress("10.0.0.1", "garbage, 10.0.0.2", proxies)).toBe("10.0.0.2");
  });

  it("is 'unknown' without a socket", () => {
    expect(clientAddress(undefined, "198.51.100.1", proxies)).toBe("unknown");
  });
});

describe("rate-limit bucket of an address", () => {
  it("is the address itself for IPv4", () => {
    expect(rateLimitKey("198.51.100.7")).toBe("198.51.100.7");
    expect(rateLimitKey("unknown")).toBe("unknown");
  });

  it("is the /64 for IPv6, however the address is written", () => {
    const key = "2001:db8:1:2::/64";
    for (const a of ["2001:db8:1:2::1", "2001:0db8:0001:0002:ffff:ffff:ffff:ffff", "2001:DB8:1:2:3:4:5:6", "2001:db8:1:2::1%eth0"]) {
      expect(rateLimitKey(a)).toBe(key);
    }
    expect(rateLimitKey("2001:db8:1:3::1")).not.toBe(key);
    expect(rateLimitKey("::1")).toBe("0:0:0:0::/64");
    expect(rateLimitKey("1::2:3:4:5:1.2.3.4")).toBe("1:0:2:3::/64");
  });
});
