// Outgoing HTTP to user-given URLs: the SSRF guard (literal addresses, every resolved address, every
// redirect hop), bounded redirects, the response size limit and the deadline, against a real local
// HTTP server.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nonPublicAddressKind } from "../src/http/addresses";
import { OutgoingHttpError, createOutgoingHttp, type AddressPolicy } from "../src/http/outgoing";

let server: Server;
let port: number;
const base = () => `http://127.0.0.1:${port}`;

const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  "/ok": (req, res) => res.end(`hello ${req.headers["user-agent"]}`),
  "/redirect-to-ok": (_req, res) => res.writeHead(302, { location: "/ok" }).end(),
  "/loop": (_req, res) => res.writeHead(302, { location: "/loop" }).end(),
  "/to-other-loopback": (_req, res) => res.writeHead(301, { location: `http://127.0.0.2:${port}/ok` }).end(),
  "/to-ftp": (_req, res) => res.writeHead(302, { location: "ftp://example.com/file" }).end(),
  "/big-declared": (_req, res) => res.writeHead(200, { "content-length": "2048" }).end(Buffer.alloc(2048, 97)),
  "/big-chunked": (_req, res) => {
    res.writeHead(200);
    for (let i = 0; i < 8; i++) res.write(Buffer.alloc(256, 98));
    res.end();
  },
  "/headers": (req, res) => res.end(JSON.stringify({ auth: req.headers.authorization ?? null })),
  "/redirect-keeping-origin": (_req, res) => res.writeHead(307, { location: "/headers" }).end(),
  "/hang": () => {
    // never answers: the client's deadline must end the exchange
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const route = routes[new URL(req.url ?? "/", "http://x").pathname];
    if (route) route(req, res);
    else res.writeHead(404).end("not found");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function failure(p: Promise<unknown>): Promise<OutgoingHttpError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(OutgoingHttpError);
  return e as OutgoingHttpError;
}

/** Loopback is "public" here except 127.0.0.2, so redirects to another host can be exercised locally. */
const onlyFirstLoopback: AddressPolicy = (a) => (a === "127.0.0.1" || a === "::1" ? null : `test-blocked address ${a}`);

describe("which addresses are not public", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["fd00::1", "private"],
    ["169.254.169.254", "link-local"],
    ["fe80::1", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["224.0.0.1", "reserved"],
    ["198.51.100.7", "reserved"],
  ])("%s is %s", (ip, kind) => expect(nonPublicAddressKind(ip)).toBe(kind));

  it.each(["8.8.8.8", "172.32.0.1", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("%s is public", (ip) =>
    expect(nonPublicAddressKind(ip)).toBeNull(),
  );
});

describe("the SSRF guard", () => {
  it("refuses a literal loopback address unless private URLs are allowed", async () => {
    const http = createOutgoingHttp({ allowPrivate: false });
    const e = await failure(http.request(`${base()}/ok`));
    expect(e.code).toBe("blocked_address");
    expect(e.message).toContain("loopback address");
    expect(e.message).toContain("ALLOW_PRIVATE_URLS");
    await http.close();

    const allowed = createOutgoingHttp({ allowPrivate: true });
    const res = await allowed.request(`${base()}/ok`);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe("hello Scribe/1.0");
    await allowed.close();
  });

  it("refuses a host name that resolves to a loopback address, and IPv4-mapped IPv6 literals", async () => {
    const http = createOutgoingHttp();
    const byName = await failure(http.request(`http://localhost:${port}/ok`));
    expect(byName.code).toBe("blocked_address");
    expect(byName.message).toMatch(/^Refused to connect to localhost \((127\.0\.0\.1|::1)\)/);
    const mapped = await failure(http.request(`http://[::ffff:127.0.0.1]:${port}/ok`));
    expect(mapped.code).toBe("blocked_address");
    await http.close();
  });

  it("checks every redirect hop", async () => {
    const http = createOutgoingHttp({ addressPolicy: onlyFirstLoopback });
    expect((await http.request(`${base()}/redirect-to-ok`)).body.toString()).toBe("hello Scribe/1.0");
    const e = await failure(http.request(`${base()}/to-other-loopback`));
    expect(e.code).toBe("blocked_address");
    expect(e.message).toContain("127.0.0.2");
    const ftp = await failure(http.request(`${base()}/to-ftp`));
    expect(ftp.code).toBe("invalid_url");
    await http.close();
  });

  it("refuses schemes other than http and https", async () => {
    const http = createOutgoingHttp({ allowPrivate: true });
    expect((await failure(http.request("file:///etc/passwd"))).code).toBe("invalid_url");
    expect((await failure(http.request("not a url"))).code).toBe("invalid_url");
    await http.close();
  });
});

describe("limits", () => {
  it("follows a bounded number of redirects and reports where the answer came from", async () => {
    const http = createOutgoingHttp({ allowPrivate: true, maxRedirects: 3 });
    const res = await http.request(`${base()}/redirect-to-ok`);
    expect(res).toMatchObject({ status: 200, url: `${base()}/ok`, redirects: 1 });
    const e = await failure(http.request(`${base()}/loop`));
    expect(e).toMatchObject({ code: "too_many_redirects", message: "Too many redirects (more than 3)" });
    await http.close();
  });

  it("keeps credentials on a same-origin redirect", async () => {
    const http = createOutgoingHttp({ allowPrivate: true });
    const res = await http.request(`${base()}/redirect-keeping-origin`, { headers: { Authorization: "Bearer x" } });
    expect(JSON.parse(res.body.toString())).toEqual({ auth: "Bearer x" });
    await http.close();
  });

  it("refuses a body larger than the limit, announced or streamed", async () => {
    const http = createOutgoingHttp({ allowPrivate: true, maxBodyBytes: 1024 });
    expect((await failure(http.request(`${base()}/big-declared`))).code).toBe("too_large");
    const streamed = await failure(http.request(`${base()}/big-chunked`));
    expect(streamed).toMatchObject({ code: "too_large", message: "Response is larger than 1024 bytes" });
    await http.close();
  });

  it("ends an exchange that outlives its deadline", async () => {
    const http = createOutgoingHttp({ allowPrivate: true, timeoutMs: 200 });
    const e = await failure(http.request(`${base()}/hang`));
    expect(e.code).toBe("timeout");
    expect(e.message).toMatch(/timed out after 0\.2 s/);
    await http.close();
  });

  it("names the cause when nothing listens", async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const freePort = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const http = createOutgoingHttp({ allowPrivate: true });
    const e = await failure(http.request(`http://127.0.0.1:${freePort}/`));
    expect(e).toMatchObject({ code: "network", message: `Could not reach 127.0.0.1:${freePort}: ECONNREFUSED` });
    await http.close();
  });
});
