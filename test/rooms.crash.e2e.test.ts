// Kill -9 the rooms service while rooms are being created, restart it: no event lost, none applied twice.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSystem, streamEvents, type TestSystem } from "./support/system";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
let sys: TestSystem;
let rooms: ChildProcess | null = null;
let sql: postgres.Sql;

function startRooms(): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "services/rooms/src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, ...sys.env, OPS_PORT: "0" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  return child;
}

beforeAll(async () => {
  sys = await startSystem({ label: "crash", services: ["gateway"] });
  sql = postgres(sys.db.url, { max: 2, onnotice: () => {} });
});
afterAll(async () => {
  rooms?.kill("SIGKILL");
  await sql.end({ timeout: 1 });
  await sys.stop();
});

describe("rooms service crash", () => {
  it("loses no event and publishes none twice when killed mid-load and restarted", async () => {
    const alice = sys.client("alice");
    rooms = startRooms();
    await eventually(async () => (await alice.GET("/v1/rooms")).response.status === 200, {
      timeoutMs: 30_000,
      message: "rooms service up",
    });

    const answered = new Map<string, number>();
    let stop = false;
    let next = 0;
    const worker = async () => {
      while (!stop) {
        const name = `crash-${next++}`;
        const res = await alice.POST("/v1/rooms", { body: { name } }).catch(() => null);
        answered.set(name, res?.response.status ?? 0);
        if (!res || res.response.status >= 500) await new Promise((r) => setTimeout(r, 20));
      }
    };
    const workers = Array.from({ length: 6 }, worker);
    const ok = () => [...answered.values()].filter((s) => s === 200).length;

    await eventually(() => ok() >= 40, { timeoutMs: 30_000 });
    // Stall the relay (as a slow NATS would) so committed events are certainly waiting in the outbox.
    const lock = await sql.reserve();
    await lock`select pg_advisory_lock(hashtext('scribe:outbox:rooms'))`;
    const before = ok();
    await eventually(() => ok() >= before + 20, { timeoutMs: 30_000 });
    rooms.kill("SIGKILL");
    await new Promise((r) => rooms!.once("exit", r));
    const [waiting] = await sql`select count(*)::int as n from rooms.outbox`;
    expect(waiting!.n).toBeGreaterThan(0);
    await lock`select pg_advisory_unlock(hashtext('scribe:outbox:rooms'))`;
    lock.release();

    // Requests fail while it is down; then it comes back and creation goes on.
    const failedWhileDown = await eventually(() => [...answered.values()].filter((s) => s >= 500).length);
    rooms = startRooms();
    const resumedFrom = ok();
    await eventually(() => ok() >= resumedFrom + 40, { timeoutMs: 30_000 });
    stop = true;
    await Promise.all(workers);

    const rows = await sql<{ id: string; name: string }[]>`select id, name from rooms.room where name like 'crash-%'`;
    const created = [...answered].filter(([, s]) => s === 200).map(([n]) => n);
    // Every room the API confirmed exists (a request cut off by the kill may or may not have committed).
    expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(created));

    await eventually(async () => (await sql`select 1 from rooms.outbox limit 1`).length === 0, { message: "outbox drained" });
    const events = (await streamEvents(sys.prefix, "ROOMS")).filter((e) => e.type === "room.created");
    const eventRoomIds = events.map((e) => e.subject);
    // Exactly one room.created per stored room: nothing lost, nothing published twice.
    expect(new Set(eventRoomIds).size).toBe(eventRoomIds.length);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect([...eventRoomIds].sort()).toEqual(rows.map((r) => r.id).sort());
    expect(failedWhileDown).toBeGreaterThan(0);
  }, 120_000);
});
