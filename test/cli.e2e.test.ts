// The operator's CLI against a running system: help for every command (and nothing else done),
// usage and connection errors in words, streams, tail, dead letters (list and redrive) by one name
// each, --json, migrate, hash-password, and `scribe transcribe` of a synthesised speech file.
import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { ConsumerRunner, connectBus, createLogger, connectDb, migrate, registry, serviceMigrations, type Bus } from "@scribe/kit";
import { createTestDatabase, eventually, TEST_NATS_URL } from "@scribe/kit/testing";
import { verifyPassword } from "@scribe/gateway";
import {
  buildProgram,
  runCli,
  listDeadLetters,
  redriveDeadLetters,
  tailStream,
  streamStatus,
  type DeadLetter,
  type StreamStatus,
  type TailedEvent,
} from "@scribe/cli";
import { normaliseWords, synthesizeMeeting, twoSpeakerStandup } from "@scribe/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScribeClient, ok } from "@scribe/client";
import { onTranscript } from "./support/api";
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
/** The CLI in this process (same program and parser as the binary, without a process start per call). */
async function cli(...args: string[]): Promise<{ code: number | "keep-running"; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, sys.env, { out: (l) => out.push(l), err: (l) => err.push(l), isTty: false });
  return { code, out: out.join("\n"), err: err.join("\n") };
}
async function collect(gen: AsyncGenerator<TailedEvent>): Promise<TailedEvent[]> {
  const out: TailedEvent[] = [];
  for await (const e of gen) out.push(e);
  return out;
}

beforeAll(async () => {
  sys = await startSystem({ label: "cli", services: ["rooms", "gateway"] });
  bus = await connectBus({ url: TEST_NATS_URL, prefix: sys.prefix, name: "cli-test" });
  const alice = sys.client("alice");
  for (const name of ["cli-a", "cli-b", "cli-c"]) await ok(alice.POST("/v1/rooms", { body: { name } }));
  await eventually(async () => (await collect(tailStream(bus, { stream: "ROOMS" }))).length === 3);
});
afterAll(async () => {
  await bus.close();
  await sys.stop();
});

// Each spawn of the binary starts Node and loads every service: minutes on a loaded machine.
describe("scribe CLI", { timeout: 300_000 }, () => {
  it("streams: lists every stream with message counts", async () => {
    const status = await streamStatus(sys.env);
    expect(status.find((s) => s.stream === "ROOMS")?.messages).toBe(3);
    expect(await scribe("streams")).toMatch(/^ROOMS\s+messages=3/m);
    const json = JSON.parse((await cli("streams", "--json")).out) as StreamStatus[];
    expect(json.find((s) => s.stream === "ROOMS")).toMatchObject({ messages: 3, serverName: `${sys.prefix.toUpperCase()}_ROOMS` });
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
    // One name per thing: subjects are shown and taken without the deployment prefix, and the
    // server's prefixed stream name is accepted too.
    expect(one.subject).toMatch(/^rooms\.room_created\./);
    const byShownSubject = (await cli("tail", `${sys.prefix.toUpperCase()}_ROOMS`, "--subject", one.subject)).out.trim().split("\n");
    expect(byShownSubject.map((l) => (JSON.parse(l) as TailedEvent).seq)).toEqual([one.seq]);
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
    // The consumer has one name in `streams`, `dlq` and the metrics' label; the durable form is accepted.
    expect(letter!.stream).toBe("ROOMS");
    const listed = JSON.parse((await cli("dlq", "list", "--consumer", "clitest_rooms", "--json")).out) as DeadLetter[];
    expect(listed.map((l) => [l.seq, l.consumer, l.stream])).toEqual([[letter!.seq, "clitest.rooms", "ROOMS"]]);
    expect((await cli("dlq", "list")).out).toMatch(/consumer=clitest\.rooms .* from=ROOMS#\d+/);
    const shown = (await streamStatus(sys.env)).find((st) => st.stream === "ROOMS")!;
    expect(shown.consumers.map((c) => c.name)).toContain("clitest.rooms");
    expect((await cli("streams")).out).toMatch(/^ {2}clitest\.rooms {2}pending=/m);
    expect(await registry.getSingleMetricAsString("scribe_events_dead_lettered_total")).toContain('consumer="clitest.rooms"');

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
      const rooms = await ok(createScribeClient({ baseUrl: api, token: () => sys.token("alice") }).GET("/v1/rooms"));
      expect(rooms.items.map((r) => r.name)).toEqual(expect.arrayContaining(["cli-a", "cli-b", "cli-c"]));
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

/** Run the real binary; resolves with its exit code and output (never rejects on a non-zero exit). */
function runScribe(args: string[], env: Record<string, string>, timeoutMs = 240_000) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "packages/cli/src/main.ts", ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    // A --help that started a service instead would never exit: stop it and let the test fail.
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

/** Every command line that names a command or subcommand, from the program itself (new commands are covered by themselves). */
function everyCommand(): string[][] {
  const ctx = { env: {}, io: { out: () => {}, err: () => {}, isTty: false }, exitCode: 0 };
  const walk = (cmd: ReturnType<typeof buildProgram>, path: string[]): string[][] =>
    cmd.commands.flatMap((c) => [[...path, c.name()], ...walk(c, [...path, c.name()])]);
  return walk(buildProgram(ctx), []).filter((p) => p[0] !== "help");
}

describe("scribe CLI: help and errors", () => {
  it("--help and -h of every command and subcommand print usage, options and an example, exit 0 and do nothing else", async () => {
    const db = await createTestDatabase("clihelp");
    const prefix = `clihelp${Date.now().toString(36)}`;
    // A database and bus prefix of their own, so anything a --help did by mistake would show here.
    const env = { DATABASE_URL: db.url, NATS_URL: TEST_NATS_URL, NATS_PREFIX: prefix, PORT: "0", OPS_PORT: "0" };
    try {
      const top = await runScribe(["--help"], env);
      expect(top.code).toBe(0);
      const commands = everyCommand();
      expect(commands.map((c) => c.join(" "))).toEqual(
        expect.arrayContaining([
          "migrate",
          "up",
          "transcribe",
          "dev",
          "streams",
          "tail",
          "dlq list",
          "runs list",
          "replay consumer",
          "hash-password",
        ]),
      );
      for (const [name] of commands.filter((c) => c.length === 1)) expect(top.out).toMatch(new RegExp(`^  ${name}\\b.*\\S`, "m"));

      // Every command and subcommand in this process (the same program), and the real binary too for
      // those that act on the database, the bus or stdin.
      // The binary for the commands that would change something if they ran (each start costs seconds).
      const spawned = [
        ["migrate", "-h"],
        ["up", "--help"],
        ["dev", "--help"],
        ["transcribe", "--help"],
        ["hash-password", "-h"],
      ];
      for (let i = 0; i < spawned.length; i += 2) {
        await Promise.all(
          spawned.slice(i, i + 2).map(async (line) => {
            const res = await runScribe(line, env);
            expect({ line: line.join(" "), code: res.code, err: res.err }).toEqual({ line: line.join(" "), code: 0, err: "" });
            expect(res.out).toMatch(new RegExp(`^Usage: scribe ${line[0]}\\b`));
            expect(res.out).toMatch(/^Examples?:\n[\s\S]*\$ (?:.* )?scribe /m);
          }),
        );
      }
      for (const line of commands.map((c) => [...c, "--help"])) {
        const out: string[] = [];
        const code = await runCli(line, env, { out: (l) => out.push(l), err: (l) => out.push(l), isTty: false });
        expect({ line: line.join(" "), code }).toEqual({ line: line.join(" "), code: 0 });
        expect(out.join("\n")).toMatch(new RegExp(`^Usage: scribe ${line.slice(0, -1).join(" ")}\\b`));
        expect(out.join("\n")).toMatch(/^Examples?:\n[\s\S]*\$ (?:.* )?scribe /m);
      }
      // `migrate --help` used to apply every migration: no schema, no table.
      const sql = connectDb(db.url, { schema: "public", max: 1 });
      try {
        const schemas = await sql<{ n: string }[]>`
          select schema_name as n from information_schema.schemata
          where schema_name not in ('public', 'information_schema') and schema_name not like 'pg\\_%'`;
        expect(schemas.map((r) => r.n)).toEqual([]);
      } finally {
        await sql.end({ timeout: 1 });
      }
      // Nor a stream (`up --help`, `dev --help` start nothing).
      const streams: string[] = [];
      for await (const name of bus.jsm.streams.names()) if (name.startsWith(prefix.toUpperCase())) streams.push(name);
      expect(streams).toEqual([]);
    } finally {
      await db.drop();
    }
  }, 1_200_000);

  it("an unknown command, option or value exits 2 with the parser's words and a hint", { timeout: 300_000 }, async () => {
    const option = await runScribe(["streams", "--bogus"], sys.env);
    expect(option).toMatchObject({ code: 2, out: "" });
    expect(option.err).toContain("error: unknown option '--bogus'");
    expect(option.err).toContain("(add --help for usage)");
    const command = await cli("strems");
    expect(command.code).toBe(2);
    expect(command.err).toMatch(/unknown command 'strems'[\s\S]*Did you mean streams\?/);
    const value = await cli("tail", "ROOMS", "--limit", "many");
    expect(value.code).toBe(2);
    expect(value.err).toContain("option '--limit <n>' argument 'many' is invalid. expected a positive integer");
    const missing = await cli("runs", "show");
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("missing required argument 'run-id'");
  });

  it("an unreachable database or bus is named with its address, without the password or a stack trace", { timeout: 600_000 }, async () => {
    const pg = await runScribe(["migrate"], { DATABASE_URL: "postgres://scribe:hunter2-secret@127.0.0.1:1/scribe", SCRIBE_DEBUG: "" });
    expect(pg.code).toBe(1);
    expect(pg.err).toContain(
      "scribe migrate: cannot reach PostgreSQL at 127.0.0.1:1 (is it running? DATABASE_URL=postgres://scribe:[redacted]@127.0.0.1:1/scribe)",
    );
    expect(pg.err).not.toContain("hunter2");
    expect(pg.err).not.toMatch(/^\s+at /m);
    const nats = await runScribe(["streams"], { NATS_URL: "nats://127.0.0.1:1", SCRIBE_DEBUG: "" });
    expect(nats.code).toBe(1);
    expect(nats.err).toContain("scribe streams: cannot reach NATS at 127.0.0.1:1 (is it running? NATS_URL=nats://127.0.0.1:1)");
    expect(nats.err).not.toMatch(/^\s+at /m);
    // SCRIBE_DEBUG=1 adds the stack for a bug report.
    const debug = await runScribe(["streams"], { NATS_URL: "nats://127.0.0.1:1", SCRIBE_DEBUG: "1" });
    expect(debug.err).toMatch(/^\s+at /m);
  });

  it("--json of config and dlq parses", async () => {
    const config = JSON.parse((await cli("config", "--json")).out) as { name: string; services: string[] }[];
    expect(config.find((r) => r.name === "DATABASE_URL")?.services).toEqual(["all"]);
    expect(Array.isArray(JSON.parse((await cli("dlq", "list", "--json")).out))).toBe(true);
  });
});

describe("scribe transcribe", () => {
  let media: TestSystem;
  beforeAll(async () => {
    media = await startSystem({ label: "clitx", services: ["rooms", "recordings", "projection", "transcription", "gateway"] });
  }, 120_000);
  afterAll(async () => {
    await media?.stop();
  });

  it("uploads a local file with an API key, follows it to the end and prints the spoken words", async () => {
    const fixture = await synthesizeMeeting(twoSpeakerStandup);
    const { key } = await media.createApiKey("alice", "cli");
    // Chunks of 1 MB: the upload goes in several requests, as a large file would.
    const res = await runScribe(
      ["transcribe", fixture.mixPath, "--url", media.baseUrl, "--name", "Stand-up", "--chunk-mb", "1"],
      { SCRIBE_API_KEY: key },
      300_000,
    );
    expect({ code: res.code, err: res.err }).toMatchObject({ code: 0 });
    // Not a terminal: plain progress lines on stderr, the transcript alone on stdout.
    expect(res.err).toMatch(/^transcript [0-9a-f-]{36} created$/m);
    expect(res.err).toMatch(/^uploading .*: 100% .*chunk (\d+)\/\1$/m);
    expect(res.err).toMatch(/: ended \(\d+ s\)$/m);
    expect(res.err).not.toContain(key);
    const spoken = new Set(fixture.truth.words.filter((w) => w.length > 3));
    const heard = new Set(normaliseWords(res.out));
    const recognised = [...spoken].filter((w) => heard.has(w));
    expect(recognised.length / spoken.size).toBeGreaterThan(0.4);

    const id = /^transcript ([0-9a-f-]{36}) created$/m.exec(res.err)![1]!;
    const t = await ok(media.client("alice").GET("/v1/transcripts/{transcript_id}", onTranscript(id)));
    expect(t).toMatchObject({ name: "Stand-up", status: "ended" });
  }, 900_000);

  it("refuses without credentials the API accepts, in words, exit 1", { timeout: 300_000 }, async () => {
    const fixture = await synthesizeMeeting(twoSpeakerStandup);
    const res = await runScribe(["transcribe", fixture.mixPath, "--url", media.baseUrl, "--api-key", "not-a-key"], {});
    expect(res.code).toBe(1);
    expect(res.err).toMatch(
      /scribe transcribe: creating the transcript: the API refused the credentials \(401 .*\); pass --token or --api-key/,
    );
    const missing = await runScribe(["transcribe", "/nonexistent.mp3", "--url", media.baseUrl], {});
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.err).toContain("scribe transcribe: cannot read /nonexistent.mp3: no such file");
  });
});

async function scribeWith(env: Record<string, string>, ...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "packages/cli/src/main.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...sys.env, ...env },
  });
  return stdout;
}
