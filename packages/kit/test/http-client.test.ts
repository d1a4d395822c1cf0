// The one outgoing HTTP client against real local HTTP servers: the SSRF guard (literals, every
// resolved address, every redirect hop, off for operator endpoints), redirects, size limits,
// deadlines and the retry rule (idempotent or not sent; 5xx/429; Retry-After).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpClient, HttpError, type AddressPolicy, type Resolver } from "../src/http/client";

let server: Server;
let port: number;
const hits: string[] = [];
const base = () => `http://127.0.0.1:${port}`;
/** Answers per path, consumed in order (the last one repeats). */
const scripted = new Map<string, { status: number; headers?: Record<string, string>; body?: string }[]>();

const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  "/ok": (req, res) => res.end(`hello ${req.headers["user-agent"]}`),
  "/redirect-to-ok": (_req, res) => res.writeHead(302, { location: "/ok" }).end(),
  "/loop": (_req, res) => res.writeHead(302, { location: "/loop" }).end(),
  "/to-other-loopback": (_req, res) => res.writeHead(301, { location: `http://127.0.0.2:${port}/ok` }).end(),
  "/to-ftp": (_req, res) => res.writeHead(302, { location: "ftp://example.com/file" }).end(),
  "/to-other-origin": (_req, res) => res.writeHead(307, { location: `http://localhost:${port}/headers` }).end(),
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
    const path = new URL(req.url ?? "/", "http://x").pathname;
    hits.push(`${req.method} ${path}`);
    const script = scripted.get(path);
    if (script) {
      const next = script.length > 1 ? script.shift()! : script[0]!;
      res.writeHead(next.status, next.headers).end(next.body ?? "");
      return;
    }
    const route = routes[path];
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

async function failure(p: Promise<unknown>): Promise<HttpError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(HttpError);
  return e as HttpError;
}
const count = (what: string) => hits.filter((h) => h === what).length;

/** Loopback is "public" here except 127.0.0.2, so redirects to another host can be exercised locally. */
const onlyFirstLoopback: AddressPolicy = (a) => (a === "127.0.0.1" || a === "::1" ? null : "test-blocked");

/** Made-up names for where a name points, without a DNS server. */
const fakeDns: Resolver = (hostname, _options, callback) => {
  const table: Record<string, { address: string; family: number }[]> = {
    "loopback.test": [{ address: "127.0.0.1", family: 4 }],
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

describe("the SSRF guard", () => {
  it("is on by default: a literal loopback address is refused unless private URLs are allowed", async () => {
    const http = createHttpClient();
    const e = await failure(http.request(`${base()}/ok`));
    expect(e.code).toBe("blocked_address");
    expect(e.message).toBe(
      "Refused to connect to 127.0.0.1: loopback address; loopback, private and link-local addresses are not allowed (ALLOW_PRIVATE_URLS)",
    );
    await http.close();

    const allowed = createHttpClient({ guard: { allowPrivate: true } });
    const res = await allowed.request(`${base()}/ok`);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe("hello Scribe/1.0");
    await allowed.close();
  });

  it("is off for operator-configured endpoints", async () => {
    const http = createHttpClient({ guard: false });
    expect((await http.request(`http://localhost:${port}/ok`)).status).toBe(200);
    await http.close();
  });

  it("refuses names that resolve to a loopback address (system resolver) and decimal-encoded literals", async () => {
    const http = createHttpClient();
    const before = count("GET /ok");
    const byName = await failure(http.request(`http://localhost:${port}/ok`));
    expect(byName.code).toBe("blocked_address");
    expect(byName.message).toMatch(/^Refused to connect to localhost \((127\.0\.0\.1|::1)\)/);
    expect((await failure(http.request(`http://2130706433:${port}/ok`))).details.address).toBe("127.0.0.1");
    expect(count("GET /ok")).toBe(before);
    await http.close();
  });

  it("refuses a name with one private answer among public ones", async () => {
    const http = createHttpClient({ guard: { allowPrivate: false, resolve: fakeDns } });
    const e = await failure(http.request("https://mixed.test/", { method: "POST", body: "{}" }));
    expect(e.details).toMatchObject({ host: "mixed.test", address: "192.168.1.20", addressKind: "private" });
    await http.close();
  });

  it("reaches loopback by name when private URLs are allowed, and reports an unknown name as a network failure", async () => {
    const http = createHttpClient({ guard: { allowPrivate: true, resolve: fakeDns } });
    expect((await http.request(`http://loopback.test:${port}/ok`)).status).toBe(200);
    const e = await failure(http.request("http://nowhere.test/"));
    expect(e).toMatchObject({ code: "network", message: "Could not reach nowhere.test: ENOTFOUND" });
    expect(e.details.reason).toBe("ENOTFOUND");
    await http.close();
  });

  it("checks every redirect hop", async () => {
    const http = createHttpClient({ guard: { allowPrivate: false, addressPolicy: onlyFirstLoopback }, maxRedirects: 5 });
    expect((await http.request(`${base()}/redirect-to-ok`)).body.toString()).toBe("hello Scribe/1.0");
    const e = await failure(http.request(`${base()}/to-other-loopback`));
    expect(e.code).toBe("blocked_address");
    expect(e.message).toContain("127.0.0.2");
    expect((await failure(http.request(`${base()}/to-ftp`))).code).toBe("invalid_url");
    await http.close();
  });

  it("refuses schemes other than http and https", async () => {
    const http = createHttpClient({ guard: { allowPrivate: true } });
    expect((await failure(http.request("file:///etc/passwd"))).code).toBe("invalid_url");
    expect((await failure(http.request("not a url"))).code).toBe("invalid_url");
    await http.close();
  });
});

describe("redirects", () => {
  it("are not followed by default: the 3xx is the answer and its target is not called", async () => {
    const http = createHttpClient({ guard: { allowPrivate: true } });
    const before = count("GET /ok");
    const res = await http.request(`${base()}/redirect-to-ok`);
    expect(res).toMatchObject({ status: 302, redirects: 0 });
    expect(res.headers.location).toBe("/ok");
    expect(count("GET /ok")).toBe(before);
    await http.close();
  });

  it("are followed up to maxRedirects for GET, and the answer says where it came from", async () => {
    const http = createHttpClient({ guard: { allowPrivate: true }, maxRedirects: 3 });
    expect(await http.request(`${base()}/redirect-to-ok`)).toMatchObject({ status: 200, url: `${base()}/ok`, redirects: 1 });
    expect(await failure(http.request(`${base()}/loop`))).toMatchObject({
      code: "too_many_redirects",
      message: "Too many redirects (more than 3)",
    });
    expect((await http.request(`${base()}/redirect-to-ok`, { method: "POST", body: "x" })).status).toBe(302);
    await http.close();
  });

  it("keep credentials on the same origin and drop them across origins", async () => {
    const http = createHttpClient({ guard: false, maxRedirects: 3 });
    const same = await http.request(`${base()}/redirect-keeping-origin`, { headers: { Authorization: "Bearer x" } });
    expect(JSON.parse(same.body.toString())).toEqual({ auth: "Bearer x" });
    const other = await http.request(`${base()}/to-other-origin`, { headers: { Authorization: "Bearer x" } });
    expect(JSON.parse(other.body.toString())).toEqual({ auth: null });
    await http.close();
  });
});

describe("limits", () => {
  it("refuses a body larger than the limit, announced or streamed", async () => {
    const http = createHttpClient({ guard: { allowPrivate: true }, maxBodyBytes: 1024 });
    expect((await failure(http.request(`${base()}/big-declared`))).code).toBe("too_large");
    expect(await failure(http.request(`${base()}/big-chunked`))).toMatchObject({
      code: "too_large",
      message: "Response is larger than 1024 bytes",
    });
    await http.close();
  });

  it("or keeps its first maxBodyBytes when asked to truncate", async () => {
    const http = createHttpClient({ guard: { allowPrivate: true } });
    const res = await http.request(`${base()}/big-chunked`, { maxBodyBytes: 1000, oversized: "truncate" });
    expect(res.body).toHaveLength(1000);
    expect(res.truncated).toBe(true);
    await http.close();
  });

  it("ends an exchange that outlives its deadline", async () => {
    const http = createHttpClient({ guard: { allowPrivate: true }, timeoutMs: 200 });
    const e = await failure(http.request(`${base()}/hang`));
    expect(e).toMatchObject({ code: "timeout", message: `Request to 127.0.0.1:${port} timed out after 0.2 s` });
    await http.close();
  });

  it("names the cause when nothing listens", async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const freePort = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const http = createHttpClient({ guard: { allowPrivate: true } });
    expect(await failure(http.request(`http://127.0.0.1:${freePort}/`))).toMatchObject({
      code: "network",
      message: `Could not reach 127.0.0.1:${freePort}: ECONNREFUSED`,
    });
    await http.close();
  });

  it("stops at once when the caller's signal fires", async () => {
    const http = createHttpClient({ guard: false, retry: { attempts: 5, backoffMs: 10, maxBackoffMs: 10 } });
    const e = await failure(http.request(`${base()}/hang`, { signal: AbortSignal.timeout(100) }));
    expect(e).toMatchObject({ code: "aborted", attempts: 1 });
    await http.close();
  });
});

describe("retries", () => {
  const retry = { attempts: 3, backoffMs: 1, maxBackoffMs: 5 };

  it("repeat an idempotent request on 503 and 429, honouring Retry-After", async () => {
    scripted.set("/busy", [{ status: 503 }, { status: 429, headers: { "retry-after": "0" } }, { status: 200, body: "done" }]);
    const http = createHttpClient({ guard: false, retry });
    const seen: number[] = [];
    const res = await http.request(`${base()}/busy`, { onRetry: ({ attempt }) => seen.push(attempt) });
    expect(res).toMatchObject({ status: 200, attempts: 3 });
    expect(seen).toEqual([2, 3]);
    expect(count("GET /busy")).toBe(3);
    await http.close();
  });

  it("return the last answer when the attempts are used up, and give up on a Retry-After beyond the limit", async () => {
    scripted.set("/down", [{ status: 502 }]);
    scripted.set("/later", [{ status: 503, headers: { "retry-after": "3600" } }]);
    const http = createHttpClient({ guard: false, retry });
    expect(await http.request(`${base()}/down`)).toMatchObject({ status: 502, attempts: 3 });
    expect(await http.request(`${base()}/later`)).toMatchObject({ status: 503, attempts: 1 });
    await http.close();
  });

  it("never repeat a request the server may have acted on unless it is idempotent", async () => {
    scripted.set("/create", [{ status: 503 }, { status: 201 }]);
    const http = createHttpClient({ guard: false, retry });
    expect(await http.request(`${base()}/create`, { method: "POST", body: "{}" })).toMatchObject({ status: 503, attempts: 1 });
    scripted.set("/create", [{ status: 503 }, { status: 201 }]);
    expect(await http.request(`${base()}/create`, { method: "POST", body: "{}", idempotent: true })).toMatchObject({
      status: 201,
      attempts: 2,
    });
    expect(count("POST /create")).toBe(3);
    expect((await failure(http.request(`${base()}/hang`, { method: "POST", timeoutMs: 100 }))).attempts).toBe(1);
    expect((await failure(http.request(`${base()}/hang`, { method: "PUT", timeoutMs: 100 }))).attempts).toBe(3);
    await http.close();
  });

  it("repeat any request that never reached the server", async () => {
    let lookups = 0;
    // The first resolution fails as if DNS were briefly unreachable; the next one finds the server.
    const flaky: Resolver = (_hostname, _options, callback) =>
      ++lookups === 1
        ? callback(Object.assign(new Error("getaddrinfo EAI_AGAIN"), { code: "EAI_AGAIN" }), [])
        : callback(null, [{ address: "127.0.0.1", family: 4 }]);
    const http = createHttpClient({ guard: { allowPrivate: true, resolve: flaky }, retry });
    expect(await http.request(`http://flaky.test:${port}/ok`, { method: "POST", body: "x" })).toMatchObject({ status: 200, attempts: 2 });
    await http.close();
  });

  it("never repeat a refused address", async () => {
    const http = createHttpClient({ retry });
    expect((await failure(http.request(`${base()}/ok`))).attempts).toBe(1);
    await http.close();
  });

  it("send a body made by a factory afresh on each attempt", async () => {
    scripted.set("/upload", [{ status: 500 }, { status: 200 }]);
    let made = 0;
    const http = createHttpClient({ guard: false, retry });
    const res = await http.request(`${base()}/upload`, { method: "POST", idempotent: true, body: () => `part ${++made}` });
    expect([res.status, made]).toEqual([200, 2]);
    await http.close();
  });
});
