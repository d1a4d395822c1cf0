// A service that is down is a 503 with Retry-After at the gateway, not a 500 and not a 503 that leaves
// the client guessing (issue 20): here the gateway runs alone, so the rooms service answers nobody.
import { createScribeClient } from "@scribe/client";
import { startProcess, type RunningProcess } from "@scribe/kit";
import { servicesByName } from "@scribe/cli";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolated, type Isolated } from "./support/dev-stack";
import { TEST_SECRET } from "./support/system";

let stack: Isolated;
let running: RunningProcess;
let baseUrl: string;

beforeAll(async () => {
  stack = await isolated("svc-outage");
  running = await startProcess(servicesByName(["gateway"]), { ...stack.env, AUTH_BACKEND: "password", SECRET_KEY: TEST_SECRET });
  baseUrl = `http://127.0.0.1:${running.services.find((s) => s.name === "gateway")!.exports.port as number}`;
}, 120_000);
afterAll(async () => {
  await running?.stop();
  await stack?.drop();
});

describe("a service that is down", () => {
  it("answers 503 naming the service, with Retry-After", async () => {
    const token = await new SignJWT({ email: "alice@example.com" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(TEST_SECRET));
    const { response, error } = await createScribeClient({ baseUrl, token }).GET("/v1/rooms");
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(error?.detail).toMatch(/rooms service/);
  });
});
