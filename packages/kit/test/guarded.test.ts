// The SSRF guard for user-given URLs: what it refuses (literals, names resolving to internal
// addresses, mixed answers), that it never follows redirects, and its deadlines.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockedRange, guardedDispatcher, guardedRequest, OutgoingRequestError, type Resolver } from "../src/http/guarded";

interface Local {
  port: number;
  hits: string[];
  server: Server;
}
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Local> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as AddressInfo).port, hits, server };
}

/** A resolver for made-up names, so tests decide where a name points without a DNS server. */
const fakeDns: Resolver = (hostname, _options, callback) => {
  const table: Record<string, { address: string; family: number }[]> = {
    "loopback.test": [{ address: "127.0.0.1", family: 4 }],
    "internal.test": [{ address: "10.1.2.3", family: 4 }],
    "metadata.test": [{ address: "169.254.169.254", family: 4 }],
    "ula.test": [{ address: "fd00::5", family: 6 }],
    // One public and one private answer: refused, whichever the client would have picked.
    "mixed.test": [
      { address: "93.184.216.34", family: 4 },
      { address: "192.168.1.20", family: 4 },
    ],
  };
  const answer = table[hostname];
  if (!answer) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), []);
  callback(null, answer);
};

let ok: Local;
let redirector: Local;
let silent: Local;
let big: Local;
beforeAll(async () => {
  ok = await serve((_req, res) => res.end("hello"));
  redirector = await serve((_req, res) => {
    res.writeHead(302, { location: `http://127.0.0.1:${ok.port}/followed` });
    res.end();
  });
  // Accepts the request and never answers.
  silent = await serve(() => {});
  big = await serve((_req, res) => res.end(Buffer.alloc(200_000, 97)));
});
afterAll(async () => {
  for (const s of [ok, redirector, silent, big]) {
    s.server.closeAllConnections();
    await new Promise((r) => s.server.close(r));
  }
});

async function failure(p: Promise<unknown>): Promise<OutgoingRequestError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(OutgoingRequestError);
  return e as OutgoingRequestError;
}

describe("blockedRange", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.10", "private"],
    ["fd12:3456::1", "private"],
    ["169.254.169.254", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["100.64.0.1", "shared address space"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["64:ff9b::10.0.0.1", "private"],
    ["224.0.0.1", "multicast"],
  ])("refuses %s (%s)", (ip, range) => expect(blockedRange(ip)).toBe(range));

  it.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("allows the public address %s", (ip) =>
    expect(blockedRange(ip)).toBeNull(),
  );
});

describe("guardedRequest without ALLOW_PRIVATE_URLS", () => {
  const guarded = guardedDispatcher({ allowPrivate: false, resolve: fakeDns });

  it.each([
    ["loopback literal", () => `http://127.0.0.1:${ok.port}/x`, /127\.0\.0\.1 is a loopback address/],
    ["IPv6 loopback literal", () => `http://[::1]:${ok.port}/x`, /::1 is a loopback address/],
    ["decimal-encoded loopback literal", () => `http://2130706433:${ok.port}/x`, /127\.0\.0\.1 is a loopback address/],
    ["private literal", () => "http://10.0.0.7/hook", /10\.0\.0\.7 is a private address/],
    ["link-local literal (cloud metadata)", () => "http://169.254.169.254/latest/meta-data", /link-local/],
    ["name resolving to loopback", () => `http://loopback.test:${ok.port}/x`, /loopback\.test resolves to 127\.0\.0\.1, a loopback address/],
    ["name resolving to a private address", () => "http://internal.test/hook", /internal\.test resolves to 10\.1\.2\.3, a private address/],
    ["name resolving to link-local", () => "http://metadata.test/", /resolves to 169\.254\.169\.254, a link-local address/],
    ["name resolving to an IPv6 unique-local address", () => "http://ula.test/", /resolves to fd00::5, a private address/],
    ["name with one private answer among public ones", () => "https://mixed.test/", /resolves to 192\.168\.1\.20/],
  ])("refuses a %s before connecting", async (_what, url, message) => {
    const before = ok.hits.length;
    const e = await failure(guardedRequest(guarded, { url: url(), method: "POST", body: "{}", timeoutMs: 5000 }));
    expect(e.kind).toBe("blocked");
    expect(e.message).toMatch(message);
    expect(ok.hits.length).toBe(before);
  });

  it("refuses localhost as the system resolver answers it", async () => {
    const system = guardedDispatcher({ allowPrivate: false });
    const e = await failure(guardedRequest(system, { url: `http://localhost:${ok.port}/x`, timeoutMs: 5000 }));
    expect(e.kind).toBe("blocked");
    expect(e.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
  });

  it("refuses schemes other than http and https", async () => {
    expect((await failure(guardedRequest(guarded, { url: "file:///etc/passwd", timeoutMs: 1000 }))).kind).toBe("invalid_url");
    expect((await failure(guardedRequest(guarded, { url: "not a url", timeoutMs: 1000 }))).kind).toBe("invalid_url");
  });

  it("reports a name that does not resolve as a connection failure", async () => {
    const e = await failure(guardedRequest(guarded, { url: "http://nowhere.test/", timeoutMs: 5000 }));
    expect(e.kind).toBe("connect");
    expect(e.message).toMatch(/ENOTFOUND/);
  });
});

describe("guardedRequest with ALLOW_PRIVATE_URLS", () => {
  const open = guardedDispatcher({ allowPrivate: true, resolve: fakeDns });

  it("reaches loopback by literal and by name", async () => {
    const a = await guardedRequest(open, { url: `http://127.0.0.1:${ok.port}/a`, timeoutMs: 5000 });
    const b = await guardedRequest(open, { url: `http://loopback.test:${ok.port}/b`, method: "POST", body: "x", timeoutMs: 5000 });
    expect([a.status, a.body, b.status, b.body]).toEqual([200, "hello", 200, "hello"]);
    expect(ok.hits).toEqual(expect.arrayContaining(["GET /a", "POST /b"]));
    expect(a.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("never follows a redirect: the 3xx is the answer and its target is not called", async () => {
    const res = await guardedRequest(open, { url: `http://127.0.0.1:${redirector.port}/hook`, method: "POST", body: "{}", timeoutMs: 5000 });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`http://127.0.0.1:${ok.port}/followed`);
    expect(ok.hits).not.toContain("POST /followed");
    expect(ok.hits).not.toContain("GET /followed");
  });

  it("gives up at the deadline when the receiver never answers", async () => {
    const e = await failure(guardedRequest(open, { url: `http://127.0.0.1:${silent.port}/`, timeoutMs: 300 }));
    expect(e.kind).toBe("timeout");
    expect(silent.hits).toHaveLength(1);
  });

  it("reports a closed port as a connection failure", async () => {
    const closed = await serve(() => {});
    await new Promise((r) => closed.server.close(r));
    const e = await failure(guardedRequest(open, { url: `http://127.0.0.1:${closed.port}/`, timeoutMs: 5000 }));
    expect(e.kind).toBe("connect");
    expect(e.message).toMatch(/ECONNREFUSED/);
  });

  it("keeps only the first maxBodyBytes of an answer", async () => {
    const res = await guardedRequest(open, { url: `http://127.0.0.1:${big.port}/`, timeoutMs: 5000, maxBodyBytes: 1000 });
    expect(res.body).toHaveLength(1000);
    expect(res.truncated).toBe(true);
  });
});
