// A service that is down is a 503 with Retry-After at the gateway, not a 500 and not a 503 that leaves
// the client guessing (issue 20): here the gateway runs alone, so the rooms service answers nobody.
import { startProcess, type RunningProcess } from "@scribe/kit";
import { servicesByName } from "@scribe/cli";
import { createTestDatabase, testPrefix, TEST_NATS_URL, type TestDatabase } from "@scribe/kit/testing";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteStreams, TEST_SECRET } from "./support/system";

let db: TestDatabase;
let prefix: string;
let running: RunningProcess;
let baseUrl: string;

beforeAll(async () => {
  db = await createTestDatabase("svc-outage");
  prefix = testPrefix("svc-outage");
  running = await startProcess(servicesByName(["gateway"]), {
    DATABASE_URL: db.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: prefix,
    PORT: "0",
    HOST: "127.0.0.1",
    OPS_PORT: "0",
    AUTH_BACKEND: "password",
    SECRET_KEY: TEST_SECRET,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "error",
    DATABASE_POOL_SIZE: "3",
  });
  baseUrl = `http://127.0.0.1:${running.services.find((s) => s.name === "gateway")!.exports.port as number}`;
}, 120_000);
afterAll(async () => {
  await running?.stop();
  if (prefix) await deleteStreams(prefix);
  await db?.drop();
});

describe("a service that is down", () => {
  it("answers 503 naming the service, with Retry-After", async () => {
    const token = await new SignJWT({ email: "alice@example.com" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(TEST_SECRET));
    // Raw fetch: the status line and headers are what this test is about.
    const res = await fetch(`${baseUrl}/v1/rooms`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(((await res.json()) as { detail: string }).detail).toMatch(/rooms service/);
  });
});
