// A database outage is a 503 with Retry-After, never a 500 (issue 20): every service of the system
// (rooms, and the gateway's own tables) reaches PostgreSQL through a TCP proxy that the test closes
// (connections cut, new ones refused) and opens again; once it is back the same requests succeed.
import { ok, type ScribeClient } from "@scribe/client";
import { eventually, TEST_ADMIN_URL } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSystem, type TestSystem } from "./support/system";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy";

let sys: TestSystem;
let proxy: TcpProxy;
let api: ScribeClient;

beforeAll(async () => {
  const postgres = new URL(TEST_ADMIN_URL);
  proxy = await startTcpProxy({ host: postgres.hostname, port: Number(postgres.port || 5432) });
  sys = await startSystem({
    label: "outagedb",
    services: ["rooms", "gateway"],
    databaseUrl: (url) => {
      const viaProxy = new URL(url);
      viaProxy.host = `127.0.0.1:${proxy.port}`;
      return viaProxy.toString();
    },
  });
  api = sys.client("alice");
}, 60_000);
afterAll(async () => {
  await proxy?.accept();
  await sys?.stop();
  await proxy?.close();
});

describe("PostgreSQL out of reach", () => {
  it("answers 503 with Retry-After while the database is down, and serves again once it is back", async () => {
    await ok(api.POST("/v1/rooms", { body: { name: "before-outage" } }));

    await proxy.refuse();
    // A service's request (rooms over request/reply) and the gateway's own SQL (API keys).
    const rooms = await api.GET("/v1/rooms", {});
    expect(rooms.response.status).toBe(503);
    expect(rooms.response.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(rooms.error).toEqual({ detail: "The service cannot reach its database; try again shortly" });
    const created = await api.POST("/v1/rooms", { body: { name: "during-outage" } });
    expect(created.response.status).toBe(503);
    expect(created.response.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    const key = await api.POST("/v1/user/api-keys", { body: { name: "during-outage" } });
    expect(key.response.status).toBe(503);
    expect(key.response.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);

    await proxy.accept();
    await eventually(async () => (await api.GET("/v1/rooms", {})).response.status === 200, { timeoutMs: 20_000 });
    await ok(api.POST("/v1/rooms", { body: { name: "after-outage" } }));
    await ok(api.POST("/v1/user/api-keys", { body: { name: "after-outage" } }));
    const names = (await ok(api.GET("/v1/rooms", {}))).items.map((r) => r.name).sort();
    expect(names).toEqual(["after-outage", "before-outage"]);
  });
});
