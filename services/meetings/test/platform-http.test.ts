// Calls to a platform API: bearer key, timeout, bounded retries only where repeating is safe, and
// errors that name the platform call.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createLogger, isAppError } from "@scribe/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { PlatformApiError, PlatformHttp, platformUnavailable } from "../src/platforms/http";

let server: Server;
let base: string;
/** Per path: the statuses to answer in turn (last one repeats); "hang" never answers. */
const script = new Map<string, (number | "hang")[]>();
const seen: { path: string; auth: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ path: req.url ?? "", auth: req.headers.authorization });
    const steps = script.get(req.url ?? "") ?? [200];
    const step = steps.length > 1 ? steps.shift()! : steps[0]!;
    if (step === "hang") return;
    res.writeHead(step, { "content-type": "application/json" }).end(JSON.stringify(step < 400 ? { ok: true } : { error: "boom" }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const client = (overrides: Partial<ConstructorParameters<typeof PlatformHttp>[0]> = {}) =>
  new PlatformHttp({
    platform: "Daily",
    baseUrl: base,
    apiKey: "k",
    apiKeyVariable: "DAILY_API_KEY",
    timeoutMs: 2000,
    retries: 2,
    log: createLogger("test", "silent"),
    ...overrides,
  });
const Ok = z.object({ ok: z.literal(true) });
const callsTo = (path: string) => seen.filter((s) => s.path === `/v1${path}`).length;

describe("platform API calls", () => {
  it("sends the API key and parses the answer", async () => {
    expect(await client().call("get_thing", { method: "GET", path: "/thing", schema: Ok, idempotent: true })).toEqual({ ok: true });
    expect(seen.at(-1)!.auth).toBe("Bearer k");
  });

  it("retries a safe call after a 5xx, up to the bound", async () => {
    script.set("/v1/flaky", [503, 502, 200]);
    expect(await client().call("get_flaky", { method: "GET", path: "/flaky", schema: Ok, idempotent: true })).toEqual({ ok: true });
    expect(callsTo("/flaky")).toBe(3);
    script.set("/v1/down", [500]);
    await expect(
      client({ retries: 1 }).call("get_down", { method: "GET", path: "/down", schema: Ok, idempotent: true }),
    ).rejects.toMatchObject({
      name: "PlatformApiError",
      status: 500,
    });
    expect(callsTo("/down")).toBe(2);
  });

  it("does not repeat a call that may have taken effect (creating a room) after a 5xx", async () => {
    script.set("/v1/rooms", [500, 200]);
    await expect(
      client().call("create_room", { method: "POST", path: "/rooms", body: {}, schema: Ok, idempotent: false }),
    ).rejects.toBeInstanceOf(PlatformApiError);
    expect(callsTo("/rooms")).toBe(1);
  });

  it("gives up after the timeout with an error naming the call", async () => {
    script.set("/v1/slow", ["hang"]);
    const err = await client({ timeoutMs: 200, retries: 0 })
      .call("get_slow", { method: "GET", path: "/slow", schema: Ok, idempotent: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlatformApiError);
    expect((err as PlatformApiError).status).toBeNull();
    expect((err as Error).message).toBe("Daily API error: get_slow failed: timed out after 200 ms");
  });

  it("refuses an answer of the wrong shape, and calls without a configured key", async () => {
    await expect(
      client().call("get_odd", { method: "GET", path: "/odd", schema: z.object({ id: z.string() }), idempotent: true }),
    ).rejects.toThrow(/get_odd failed with status 200: unexpected answer: id:/);
    const missing = await client({ apiKey: "" })
      .call("x", { method: "GET", path: "/x", schema: Ok, idempotent: true })
      .catch((e: unknown) => e);
    expect(isAppError(missing) && missing.kind).toBe("unavailable");
    expect((missing as Error).message).toBe("Daily is not configured: set DAILY_API_KEY");
  });

  it("reports an unreachable platform as unavailable to the caller", async () => {
    const err = await client({ baseUrl: "http://127.0.0.1:1/v1", retries: 1 })
      .call("get_presence", { method: "GET", path: "/p", schema: Ok, idempotent: true })
      .catch((e: unknown) => platformUnavailable(e));
    expect(isAppError(err) && err.kind).toBe("unavailable");
    expect((err as Error).message).toMatch(/^Daily API error: get_presence failed: ECONNREFUSED/);
  });
});
