// Services started while PostgreSQL and NATS are down wait for them (issue 20): the process stays up,
// its /readyz says what it waits for, and once both are reachable the services start and the API
// works. PostgreSQL and NATS are reached through TCP proxies that refuse connections until opened.
import { createServer, type AddressInfo } from "node:net";
import { createScribeClient, ok } from "@scribe/client";
import { servicesByName } from "@scribe/cli";
import { startProcess, type RunningProcess } from "@scribe/kit";
import { createTestDatabase, eventually, testPrefix, TEST_ADMIN_URL, TEST_NATS_URL, type TestDatabase } from "@scribe/kit/testing";
import { afterAll, describe, expect, it } from "vitest";
import { deleteStreams, TEST_SECRET } from "./support/system";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy";
import { SignJWT } from "jose";

let db: TestDatabase | null = null;
let prefix = "";
const proxies: TcpProxy[] = [];
let starting: Promise<RunningProcess> | null = null;

afterAll(async () => {
  for (const p of proxies) await p.accept();
  await (await starting?.catch(() => null))?.stop();
  for (const p of proxies) await p.close();
  if (prefix) await deleteStreams(prefix);
  await db?.drop();
});

/** A port nobody listens on right now, for the ops server (its readiness is what this test reads). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function viaProxy(url: string, proxy: TcpProxy): string {
  const u = new URL(url);
  u.host = `127.0.0.1:${proxy.port}`;
  return u.toString();
}

// Raw fetch on the ops port: /readyz and /livez are not the API the client describes.
async function readiness(opsPort: number): Promise<{ status: number; problems: string[] }> {
  const res = await fetch(`http://127.0.0.1:${opsPort}/readyz`);
  return { status: res.status, problems: ((await res.json()) as { problems: string[] }).problems };
}

describe("start-up while PostgreSQL and NATS are down", () => {
  it("waits, not ready, until both are reachable, then starts and serves the API", async () => {
    db = await createTestDatabase("startup");
    prefix = testPrefix("startup");
    const postgres = new URL(TEST_ADMIN_URL);
    const nats = new URL(TEST_NATS_URL);
    const pgProxy = await startTcpProxy({ host: postgres.hostname, port: Number(postgres.port || 5432) }, { refusing: true });
    const natsProxy = await startTcpProxy({ host: nats.hostname, port: Number(nats.port || 4222) }, { refusing: true });
    proxies.push(pgProxy, natsProxy);
    const opsPort = await freePort();
    starting = startProcess(servicesByName(["rooms", "gateway"]), {
      DATABASE_URL: viaProxy(db.url, pgProxy),
      NATS_URL: viaProxy(TEST_NATS_URL, natsProxy),
      NATS_PREFIX: prefix,
      PORT: "0",
      HOST: "127.0.0.1",
      OPS_PORT: String(opsPort),
      AUTH_BACKEND: "password",
      SECRET_KEY: TEST_SECRET,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "error",
      DATABASE_POOL_SIZE: "3",
      STARTUP_BACKOFF_MAX_MS: "300",
    });
    let started = false;
    void starting.then(() => (started = true));

    await eventually(async () => (await readiness(opsPort)).problems.some((p) => p.includes("rooms: waiting for PostgreSQL")));
    expect((await readiness(opsPort)).status).toBe(503);
    expect((await fetch(`http://127.0.0.1:${opsPort}/livez`)).status).toBe(200);

    await pgProxy.accept();
    await eventually(async () => (await readiness(opsPort)).problems.some((p) => p.includes("rooms: waiting for NATS")));
    expect((await readiness(opsPort)).status).toBe(503);
    expect(started).toBe(false);

    await natsProxy.accept();
    const running = await starting;
    await eventually(async () => (await readiness(opsPort)).status === 200);

    const gateway = running.services.find((s) => s.name === "gateway")!;
    const token = await new SignJWT({ email: "alice@example.com" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(TEST_SECRET));
    const api = createScribeClient({ baseUrl: `http://127.0.0.1:${gateway.exports.port as number}`, token: () => token });
    const room = await ok(api.POST("/v1/rooms", { body: { name: "after-startup" } }));
    expect((await ok(api.GET("/v1/rooms/{room_id}", { params: { path: { room_id: room.id } } }))).name).toBe("after-startup");
  });
});
