// No route answers 500 to a bad or missing credential: every operation in /openapi.json (so routes
// added later are covered too) × malformed Authorization / X-API-Key values × every auth mode.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unsignedToken } from "@scribe/simulators";
import { answer, onRoomName } from "./support/api";
import { startSystem, type AuthMode, type TestSystem } from "./support/system";

const BAD: [string, Record<string, string>][] = [
  ["no credentials", {}],
  ["an empty bearer", { authorization: "Bearer" }],
  ["a bearer of spaces", { authorization: "Bearer     " }],
  ["another scheme", { authorization: "Basic YWxpY2U6c2VjcmV0" }],
  ["a scheme alone", { authorization: "Digest" }],
  ["a non-JWT string", { authorization: "Bearer hello-world" }],
  ["three dots of nothing", { authorization: "Bearer .." }],
  ["JWT-shaped garbage", { authorization: "Bearer eyJub3QiOiJqc29uIn0.e30.c2ln" }],
  ["a header that is not JSON", { authorization: "Bearer bm90IGpzb24.bm90IGpzb24.bm90IGpzb24" }],
  ["alg none", { authorization: `Bearer ${unsignedToken({ sub: "alice", email: "a@b.c", exp: 9_999_999_999 })}` }],
  ["a token with spaces", { authorization: "Bearer a b c" }],
  ["Latin-1 bytes", { authorization: "Bearer \u00ff\u00fe\u00e9" }],
  ["an 8 kB token", { authorization: `Bearer ${"x".repeat(8000)}.${"y".repeat(100)}.z` }],
  ["an empty API key", { "x-api-key": "" }],
  ["a garbage API key", { "x-api-key": "definitely-not-a-key" }],
  ["an 8 kB API key", { "x-api-key": "k".repeat(8000) }],
  ["garbage in both", { authorization: "Bearer junk", "x-api-key": "junk" }],
];

interface Operation {
  method: string;
  path: string;
}

async function operations(sys: TestSystem): Promise<Operation[]> {
  // Raw: the document itself, and (below) malformed credential headers on every route, known or not.
  const doc = (await (await sys.as(null)("/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
  const ops: Operation[] = [
    { method: "GET", path: "/openapi.json" },
    { method: "GET", path: "/no/such/route" },
    { method: "GET", path: "/v1/no/such/route" },
  ];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const method of Object.keys(methods)) {
      ops.push({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000") });
    }
  }
  return ops;
}

for (const mode of ["password", "jwt", "none"] as AuthMode[]) {
  describe(`bad credentials with AUTH_BACKEND=${mode}`, () => {
    let sys: TestSystem;
    beforeAll(async () => {
      sys = await startSystem({ label: `cred${mode}`, auth: mode });
    });
    afterAll(async () => sys.stop());

    it("never get a 5xx from any route", async () => {
      const failures: string[] = [];
      for (const op of await operations(sys)) {
        const init: RequestInit = ["POST", "PATCH", "PUT"].includes(op.method) ? { method: op.method, body: "{}" } : { method: op.method };
        await Promise.all(
          BAD.map(async ([what, headers]) => {
            const res = await sys.withHeaders(headers)(op.path, init);
            await res.arrayBuffer();
            if (res.status >= 500) failures.push(`${op.method} ${op.path} with ${what}: ${res.status}`);
          }),
        );
      }
      expect(failures.sort()).toEqual([]);
    });

    it(
      mode === "none" ? "are ignored: everyone is anonymous" : "that look like a token are a 401 on /v1 routes that read credentials",
      async () => {
        const res = await answer(sys.clientWith({ token: "hello-world" }).GET("/v1/rooms/name/{room_name}", onRoomName("whatever")));
        if (mode === "none") expect(res.status).toBe(404);
        else expect(res).toEqual({ status: 401, body: { detail: "Invalid authentication" } });
      },
    );

    it("answer 431 (not 500) when the headers are larger than the server accepts", async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const url = new URL("/v1/me", sys.baseUrl);
        const req = request(url, { headers: { authorization: `Bearer ${"x".repeat(64 * 1024)}` } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end();
      });
      expect(status).toBe(431);
    });
  });
}
