// No 5xx from any input (issue 21.3): every operation of the gateway's OpenAPI document, driven with
// malformed path, query and body values generated from the document itself (seeded: FUZZ_SEED
// repeats a run, FUZZ_REQUESTS sizes it). Any 5xx fails the test and prints the request that made it.
import { seededRandom } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatformSystem, type PlatformSystem } from "./support/platforms";
import type { Client } from "./support/system";

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 5000);
const CONCURRENCY = 8;

let sys: PlatformSystem;
// Raw: the requests are malformed paths, queries and bodies the typed client would refuse to build.
let alice: Client;
let anon: Client;

beforeAll(async () => {
  sys = await startPlatformSystem({ label: "fuzz", env: { LOGIN_RATE_LIMIT_ATTEMPTS: "1000000" } });
  alice = sys.as("alice");
  anon = sys.as(null);
}, 60_000);
afterAll(async () => sys?.stop());

/** Path and query values as they go on the wire (already percent-encoded where it matters). */
const WIRE_VALUES = [
  "%00",
  "a%00b",
  "%01",
  "%0A",
  "%0D%0A",
  "%1F",
  "%7F",
  "%FF",
  "%C3%28",
  "%E2%80%AE",
  "%F0%9F%98%80",
  "%ED%A0%80",
  "x".repeat(2000),
  "-1",
  "0",
  "1e309",
  "NaN",
  "00000000-0000-0000-0000-000000000000",
  "not-a-uuid",
  "%27%20or%201%3D1--",
  "%25",
  "%2F",
  "..",
  "%2E%2E",
  "true",
  "null",
  "%20",
  "2026-13-45T99:99:99Z",
  "9".repeat(40),
  "%5B%5D",
];
/** JSON values of every kind, most of them wrong for the field they land in. */
const BODY_VALUES: unknown[] = [
  "\u0000",
  "a\u0000b",
  "\u0001",
  "\ud800",
  "\u202e",
  "x".repeat(20_000),
  "",
  " ",
  "not-a-uuid",
  "2026-13-45T99:99:99Z",
  "00000000-0000-0000-0000-000000000000",
  -1,
  0,
  1.5,
  1e308,
  -1e308,
  2 ** 63,
  Number.MAX_SAFE_INTEGER,
  true,
  false,
  null,
  [],
  [null],
  ["\u0000"],
  {},
  { "\u0000": 1 },
  "http://127.0.0.1:1/\u0000",
  "a@b",
  "@",
  "😀".repeat(100),
];

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  allOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
};
interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  body: Schema | null;
}

function operationsOf(doc: {
  paths: Record<
    string,
    Record<string, { parameters?: { in: string; name: string }[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>
  >;
}): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const params = op.parameters ?? [];
      const content = op.requestBody?.content ?? {};
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
        queryParams: params.filter((p) => p.in === "query").map((p) => p.name),
        body: content["application/json"]?.schema ?? (Object.keys(content).length ? {} : null),
      });
    }
  }
  return ops;
}

function resolve(schema: Schema, components: Record<string, Schema>, depth = 0): Schema {
  if (depth > 5) return {};
  if (schema.$ref) return resolve(components[schema.$ref.split("/").pop()!] ?? {}, components, depth + 1);
  const branch = schema.allOf?.[0] ?? schema.anyOf?.find((s) => s.type !== "null") ?? schema.oneOf?.[0];
  return branch ? { ...resolve(branch, components, depth + 1), ...schema, allOf: undefined, anyOf: undefined, oneOf: undefined } : schema;
}

/** A generated request: which operation, the wire path with query, the body text. */
interface FuzzRequest {
  /** `METHOD path template` of the operation. */
  operation: string;
  /** The part this request breaks. */
  target: "path" | "query" | "body" | "none";
  method: string;
  url: string;
  body: string | undefined;
  anonymous: boolean;
}

function generate(ops: Operation[], components: Record<string, Schema>, random: () => number, count: number): FuzzRequest[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const plausible = () => pick(["ryw-room", "00000000-0000-0000-0000-000000000000", "abc", "1"]);
  const out: FuzzRequest[] = [];
  for (let i = 0; out.length < count; i++) {
    const op = ops[i % ops.length]!;
    // Each request breaks one part the operation has (path, query or body) and keeps the others plausible.
    const parts = (["path", "query", "body"] as const).filter((p) =>
      p === "path" ? op.pathParams.length > 0 : p === "query" ? op.queryParams.length > 0 : op.body !== null,
    );
    const target = parts.length ? pick(parts) : "none";
    const badParam = op.pathParams.length ? pick(op.pathParams) : null;
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      target === "path" && name === badParam ? pick(WIRE_VALUES) : plausible(),
    );
    const query = op.queryParams
      .filter(() => target === "query" || random() < 0.3)
      .map((name) => `${name}=${target === "query" ? pick(WIRE_VALUES) : "1"}`)
      .join("&");
    let body: string | undefined;
    if (op.body) {
      const schema = resolve(op.body, components);
      const props = Object.keys(schema.properties ?? {});
      if (target === "body" && random() < 0.15) body = pick(["", "{", "null", "[]", '"x"', "1", '{"a":'.repeat(50)]);
      else if (target === "body" || random() < 0.5) {
        const obj: Record<string, unknown> = {};
        for (const p of props) if (random() < 0.6) obj[p] = pick(BODY_VALUES);
        body = JSON.stringify(obj);
      } else body = "{}";
    }
    out.push({
      operation: `${op.method} ${op.path}`,
      target,
      method: op.method,
      url: query ? `${path}?${query}` : path,
      body,
      anonymous: random() < 0.2,
    });
  }
  return out;
}

describe("malformed input", () => {
  it("refuses control characters in path and query values with a 422 naming the parameter", async () => {
    for (const [method, path, loc] of [
      ["GET", "/v1/transcripts/%00", ["path", "transcript_id"]],
      ["POST", "/v1/meetings/%00/consent", ["path", "meeting_id"]],
      ["GET", "/v1/rooms/a%0Ab/meetings/active", ["path", "room_name"]],
      ["GET", "/v1/transcripts?source_kind=%00", ["query", "source_kind"]],
    ] as const) {
      const res = await alice(path, { method, ...(method === "POST" ? { body: "{}" } : {}) });
      expect(res.status, `${method} ${path}`).toBe(422);
      expect((await res.json()).detail).toEqual([expect.objectContaining({ loc })]);
    }
    // Still the reference's 404 for an id that is merely unknown.
    expect((await alice("/v1/transcripts/00000000-0000-0000-0000-000000000000")).status).toBe(404);
  });

  it("answers an id that is not a UUID, where the contract makes it one, with the route's 404", async () => {
    for (const [method, path, detail] of [
      ["GET", "/v1/transcripts/not-a-uuid", "Transcript not found"],
      ["PATCH", "/v1/transcripts/1234/participants/p1", "Transcript not found"],
      ["GET", "/v1/rooms/%27%20or%201%3D1--", "Room not found"],
      ["POST", "/v1/rooms/abc/webhook/test", "Room not found"],
      ["DELETE", "/v1/user/api-keys/x", "Not Found"],
    ] as const) {
      const res = await alice(path, { method, ...(method !== "GET" && method !== "DELETE" ? { body: "{}" } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.json()).toEqual({ detail });
    }
    // Names and platform meeting ids are not UUIDs: a bounded string reaches the route.
    expect((await alice("/v1/rooms/name/not-a-uuid")).status).toBe(404);
    const long = await alice(`/v1/rooms/${"n".repeat(1025)}/meetings/active`);
    expect(long.status).toBe(422);
    expect((await long.json()).detail).toEqual([expect.objectContaining({ loc: ["path", "room_name"] })]);
  });

  it("refuses a NUL inside a JSON string with a 422, not a database error", async () => {
    const res = await alice("/v1/user/api-keys", { method: "POST", body: JSON.stringify({ name: "a\u0000b" }) });
    expect(res.status).toBe(422);
  });

  it(`answers no 5xx to ${REQUESTS} generated requests over every operation (seed ${SEED})`, async () => {
    const doc = await (await anon("/openapi.json")).json();
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThan(50);
    const requests = generate(ops, doc.components?.schemas ?? {}, seededRandom(SEED), REQUESTS);
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const r = requests[next++]!;
        const res = await (r.anonymous ? anon : alice)(r.url, { method: r.method, ...(r.body !== undefined ? { body: r.body } : {}) });
        const text = await res.text();
        if (res.status >= 500) {
          failures.push(
            `${res.status} ${r.method} ${r.url}${r.body !== undefined ? ` body=${r.body.slice(0, 300)}` : ""} → ${text.slice(0, 200)}`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const byTarget: Partial<Record<FuzzRequest["target"], number>> = {};
    for (const r of requests) byTarget[r.target] = (byTarget[r.target] ?? 0) + 1;
    console.log(
      `fuzz (seed ${SEED}): ${requests.length} requests over ${ops.length} operations — malformed path ${byTarget.path ?? 0}, ` +
        `query ${byTarget.query ?? 0}, body ${byTarget.body ?? 0}, nothing to break ${byTarget.none ?? 0}; ${failures.length} × 5xx`,
    );
    // Every part of every operation was broken at least once.
    const broken = new Set(requests.map((r) => `${r.operation} ${r.target}`));
    for (const op of ops) {
      for (const [part, has] of [
        ["path", op.pathParams.length > 0],
        ["query", op.queryParams.length > 0],
        ["body", op.body !== null],
      ] as const) {
        if (has) expect(broken, `${op.method} ${op.path}: malformed ${part}`).toContain(`${op.method} ${op.path} ${part}`);
      }
    }
    if (failures.length) console.error(`FUZZ_SEED=${SEED} reproducers:\n${failures.slice(0, 60).join("\n")}`);
    expect(failures).toEqual([]);
  }, 600_000);
});
