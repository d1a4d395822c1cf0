// CORS headers on every answer, set once the route answered (http/cors.ts), and on preflights.
import { createServer } from "node:http";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corsHeaders } from "../src/http/cors";

const EXPOSED = ["x-request-id", "scribe-versions", "etag"];
let upstream: ReturnType<typeof createServer>;
let upstreamUrl: string;

beforeAll(async () => {
  upstream = createServer((_, res) => res.end("from upstream"));
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}/`;
});
afterAll(() => new Promise((resolve) => upstream.close(resolve)));

function appWith(origin: string[] | ((origin: string) => string | null), credentials = false) {
  const app = new Hono();
  app.use("*", corsHeaders({ origin, credentials, allowMethods: ["GET", "POST", "OPTIONS"], exposeHeaders: EXPOSED }));
  app.onError((_, c) => c.json({ detail: "boom" }, 500));
  app.get("/json", (c) => c.json({ ok: true }));
  app.get("/bytes", (c) => c.body(new TextEncoder().encode('{"ok":true}'), 200, { "Content-Type": "application/json" }));
  app.get("/fails", () => {
    throw new Error("boom");
  });
  // A fetch() answer's headers are immutable.
  app.get("/proxied", () => fetch(upstreamUrl));
  return app;
}

const from = (origin: string) => ({ headers: { origin } });

describe("CORS headers", () => {
  it("answers an allowed origin on every kind of answer: JSON, bytes, an error, a fetched response", async () => {
    const app = appWith(["https://app.example.com"]);
    for (const path of ["/json", "/bytes", "/fails", "/proxied"]) {
      const res = await app.request(path, from("https://app.example.com"));
      expect(res.headers.get("access-control-allow-origin"), path).toBe("https://app.example.com");
      expect(res.headers.get("access-control-expose-headers"), path).toBe(EXPOSED.join(","));
      expect(res.headers.get("vary"), path).toContain("Origin");
      expect(res.headers.get("access-control-allow-credentials"), path).toBeNull();
    }
    expect(await (await app.request("/proxied", from("https://app.example.com"))).text()).toBe("from upstream");
    expect(await (await app.request("/bytes", from("https://app.example.com"))).json()).toEqual({ ok: true });
  });

  it("names no origin for one that is not allowed, and says credentials are allowed when they are", async () => {
    const res = await appWith(["https://app.example.com"]).request("/json", from("https://evil.example.com"));
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const withCredentials = await appWith((o) => o, true).request("/json", from("https://any.example.com"));
    expect(withCredentials.headers.get("access-control-allow-origin")).toBe("https://any.example.com");
    expect(withCredentials.headers.get("access-control-allow-credentials")).toBe("true");
  });

  it("answers a preflight with 204 and the allowed methods", async () => {
    const res = await appWith(["https://app.example.com"]).request("/json", {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example.com",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(res.headers.get("access-control-allow-methods")).toBe("GET,POST,OPTIONS");
    expect(res.headers.get("access-control-allow-headers")).toBe("authorization");
  });
});
