// The operator's CLI against a running system: streams, tail, dead letters (list and redrive),
// migrate and hash-password.
import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { ConsumerRunner, connectBus, createLogger, connectDb, migrate, serviceMigrations, type Bus } from "@scribe/kit";
import { createTestDatabase, eventually, TEST_NATS_URL } from "@scribe/kit/testing";
import { verifyPassword } from "@scribe/gateway";
import { listDeadLetters, redriveDeadLetters, tailStream, type TailedEvent, streamStatus } from "@scribe/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSystem, type TestSystem } from "./support/system";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
let sys: TestSystem;
let bus: Bus;

async function scribe(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "packages/cli/src/main.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...sys.env },
  });
  return stdout;
}
async function collect(gen: AsyncGenerator<TailedEvent>): Promise<TailedEvent[]> {
  const out: TailedEvent[] = [];
  for await (const e of gen) out.push(e);
  return out;
}

beforeAll(async () => {
  sys = await startSystem({ label: "cli", services: ["rooms", "gateway"] });
  bus = await connectBus({ url: TEST_NATS_URL, prefix: sys.prefix, name: "cli-test" });
  const alice = sys.as("alice");
  for (const name of ["cli-a", "cli-b", "cli-c"]) {
    expect((await alice("/v1/rooms", { method: "POST", body: JSON.stringify({ name }) })).status).toBe(200);
  }
  await eventually(async () => (await collect(tailStream(bus, { stream: "ROOMS" }))).length === 3);
});
afterAll(async () => {
  await bus.close();
  await sys.stop();
});

describe("scribe CLI", () => {
  it("streams: lists every stream with message counts", async () => {
    const status = await streamStatus(sys.env);
    expect(status.find((s) => s.stream.endsWith("_ROOMS"))?.messages).toBe(3);
    expect(await scribe("streams")).toMatch(/_ROOMS\s+messages=3/);
  });

  it("tail: prints events, filtered by subject, from a sequence or a time", async () => {
    const all = await collect(tailStream(bus, { stream: "rooms" }));
    expect(all.map((e) => e.type)).toEqual(["room.created", "room.created", "room.created"]);
    const one = all[1]!;
    const bySubject = await collect(
      tailStream(bus, { stream: "ROOMS", subject: `rooms.room_created.${(one.data as { subject: string }).subject}` }),
    );
    expect(bySubject.map((e) => e.seq)).toEqual([one.seq]);
    const fromSeq = await collect(tailStream(bus, { stream: "ROOMS", fromSeq: one.seq }));
    expect(fromSeq.map((e) => e.seq)).toEqual([one.seq, all[2]!.seq]);
    const since = await collect(tailStream(bus, { stream: "ROOMS", since: new Date(Date.parse(all[2]!.time)) }));
    expect(since.map((e) => e.seq)).toContain(all[2]!.seq);
    expect(since.map((e) => e.seq)).not.toContain(all[0]!.seq);

    const lines = (await scribe("tail", "ROOMS", "--limit", "2")).trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!).type).toBe("room.created");
  });

  it("dlq: lists dead letters with consumer and reason, and redrive makes the failing consumer apply them", async () => {
    // A consumer that cannot apply room cli-b until it is "fixed".
    const db = sys.db.url;
    const sql = connectDb(db, { schema: "clitest", max: 2 });
    await migrate(sql, { schema: "clitest", migrations: serviceMigrations("clitest") });
    await sql`create table if not exists seen (name text primary key)`;
    let fixed = false;
    const makeRunner = () =>
      new ConsumerRunner({
        bus,
        sql,
        log: createLogger("test", "silent"),
        name: "clitest.rooms",
        stream: "ROOMS",
        maxDeliver: 2,
        backoffMs: () => 10,
        handlers: {
          "room.created": async (tx, ev) => {
            if (ev.data.name === "cli-b" && !fixed) throw new Error("cannot handle cli-b yet");
            await tx`insert into seen (name) values (${ev.data.name})`;
          },
        },
      });
    const runner = makeRunner();
    await runner.start();
    await eventually(async () => (await listDeadLetters(bus, { consumer: "clitest.rooms" })).length === 1);
    const [letter] = await listDeadLetters(bus, { consumer: "clitest.rooms" });
    expect(letter).toMatchObject({
      consumer: "clitest.rooms",
      reason: "cannot handle cli-b yet",
      deliveries: 2,
      eventType: "room.created",
    });
    expect(await scribe("dlq", "list")).toContain("cannot handle cli-b yet");

    fixed = true;
    expect(await redriveDeadLetters(bus, [letter!.seq])).toEqual({ redriven: [letter!.seq], missing: [] });
    await eventually(async () => (await sql`select name from seen order by name`).map((r) => r.name).join(",") === "cli-a,cli-b,cli-c");
    expect(await listDeadLetters(bus)).toEqual([]);
    await runner.stop();
    await sql.end({ timeout: 1 });
  });

  it("migrate: applies every service's migrations to a new database, then finds it up to date", async () => {
    const db = await createTestDatabase("climigrate");
    try {
      const env = { DATABASE_URL: db.url };
      const first = (await scribeWith(env, "migrate")).trim().split("\n");
      expect(first.length).toBeGreaterThanOrEqual(9);
      for (const line of first) expect(line).toMatch(/^[a-z]+: applied (_[a-z]+\/)?\d{4}_/);
      expect(first.map((l) => l.split(":")[0])).toEqual(expect.arrayContaining(["rooms", "transcription", "projection", "gateway"]));
      const again = (await scribeWith(env, "migrate")).trim().split("\n");
      expect(again.every((l) => l.endsWith(": up to date"))).toBe(true);
    } finally {
      await db.drop();
    }
  });

  it("up: runs the named services in one process (as each container does) until SIGTERM, then exits 0", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "packages/cli/src/main.ts", "up", "rooms", "gateway"], {
      cwd: ROOT,
      env: { ...process.env, ...sys.env, LOG_LEVEL: "info", PORT: "0", OPS_PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      const api = await eventually(() => /gateway listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1], {
        timeoutMs: 60_000,
        message: `the gateway of scribe up; got:\n${out}`,
      });
      expect(out).toMatch(/"service":"rooms".*"msg":"service started"/);
      const res = await fetch(`${api}/v1/rooms`, { headers: { authorization: `Bearer ${await sys.token("alice")}` } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { items: { name: string }[] }).items.map((r: { name: string }) => r.name)).toEqual(
        expect.arrayContaining(["cli-a", "cli-b", "cli-c"]),
      );
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("hash-password: prints a hash of the password on stdin that the gateway accepts, and refuses an empty one", async () => {
    const hashOf = (input: string) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
        const child = spawn(process.execPath, ["--import", "tsx", "packages/cli/src/main.ts", "hash-password"], {
          cwd: ROOT,
          env: process.env,
        });
        let out = "";
        let err = "";
        child.stdout.on("data", (d) => (out += d));
        child.stderr.on("data", (d) => (err += d));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, out, err }));
        child.stdin.end(input);
      });
    const ok = await hashOf("correct horse\n");
    expect(ok.code).toBe(0);
    const hash = ok.out.trim();
    expect(await verifyPassword("correct horse", hash)).toBe(true);
    expect(await verifyPassword("correct horse\n", hash)).toBe(false);
    const empty = await hashOf("");
    expect(empty.code).not.toBe(0);
    expect(empty.err).toMatch(/no password on stdin/);
  });
});

async function scribeWith(env: Record<string, string>, ...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "packages/cli/src/main.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...sys.env, ...env },
  });
  return stdout;
}
