// A service whose start-up hits a NATS request that nobody answers in time (a JetStream cluster
// electing a leader, a bucket's stream moving) after its connection succeeded waits and starts
// again on a new connection (issue 20), instead of exiting; what the failed attempt had started
// (request/reply subscriptions, stop hooks) does not stay behind, and the started service works.
import { defineOp } from "@scribe/contracts";
import { z } from "zod";
import { afterEach, describe, expect, it } from "vitest";
import { defineService, startService, type RunningService } from "../src/service";
import { natsNotUpYet } from "../src/startup";
import { rpcCall } from "../src/bus/rpc";
import { kitEnv, log, type KitEnv } from "./helpers";
import { testPrefix, TEST_NATS_URL } from "../src/testing";

const echo = defineOp("startretry.echo", z.object({ said: z.string() }), z.object({ said: z.string(), attempt: z.number() }));

let env: KitEnv | null = null;
let running: RunningService | null = null;

afterEach(async () => {
  await running?.stop();
  running = null;
  await env?.close();
  env = null;
});

describe("start-up after the connection", () => {
  it("retries a start-up step whose NATS request timed out, on a new connection, without leftovers", async () => {
    const schema = "startretry";
    env = await kitEnv("startretry", schema);
    const prefix = env.bus.prefix;
    // A subscriber that never answers: a request to it times out for real, as a JetStream API
    // request does while the cluster has no leader.
    const silent = `${prefix}.test.silent`;
    const silentSub = env.bus.nc.subscribe(silent);
    let attempts = 0;
    let stopHooksRun = 0;
    const def = defineService({
      name: schema,
      config: z.object({}),
      async start({ bus, rpc, onStop }) {
        attempts++;
        const attempt = attempts;
        rpc.handle(echo, async (req) => ({ said: req.said, attempt }));
        onStop(async () => void stopHooksRun++);
        if (attempts < 3) await bus.nc.request(silent, "", { timeout: 50 });
      },
    });
    const progress: (string | null)[] = [];
    running = await startService(
      def,
      {
        DATABASE_URL: env.db.url,
        NATS_URL: TEST_NATS_URL,
        NATS_PREFIX: prefix,
        MIGRATE_ON_START: "false",
        STARTUP_BACKOFF_MAX_MS: "100",
        LOG_LEVEL: "silent",
      },
      { log, progress: (p) => progress.push(p) },
    );
    expect(attempts).toBe(3);
    // Each failed attempt's stop hooks ran when it was undone; the started one's have not.
    expect(stopHooksRun).toBe(2);
    expect(progress.filter((p) => p?.includes("waiting for NATS") && p.includes("timeout"))).toHaveLength(2);
    expect(progress.at(-1)).toBeNull();

    // Only the started attempt answers: the failed attempts' handlers (the same queue group) were
    // drained with their connections, or some of these calls would reach them.
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => rpcCall(env!.bus, echo, { said: `hi ${i}` })));
    expect(new Set(answers.map((a) => a.attempt))).toEqual(new Set([3]));
    silentSub.unsubscribe();
  });

  it("does not retry a start-up failure that waiting cannot mend", async () => {
    const schema = "startfail";
    env = await kitEnv("startfail", schema);
    let attempts = 0;
    const def = defineService({
      name: schema,
      config: z.object({}),
      async start() {
        attempts++;
        throw new Error("ROOM_PLATFORM is not a platform this build knows");
      },
    });
    await expect(
      startService(
        def,
        {
          DATABASE_URL: env.db.url,
          NATS_URL: TEST_NATS_URL,
          NATS_PREFIX: testPrefix("startfail2"),
          MIGRATE_ON_START: "false",
          LOG_LEVEL: "silent",
        },
        { log },
      ),
    ).rejects.toThrow(/not a platform/);
    expect(attempts).toBe(1);
  });
});

describe("natsNotUpYet", () => {
  it.each([
    [{ name: "TimeoutError", message: "timeout" }, true],
    [{ name: "NoResponders", message: "no responders: '$JS.API.STREAM.INFO.x'" }, true],
    [{ name: "JetStreamApiError", code: 10008, status: 503, message: "JetStream system temporarily unavailable" }, true],
    [{ name: "ConnectionError", message: "connection refused" }, true],
    [{ name: "AuthorizationError", message: "Authorization Violation" }, false],
    [{ name: "JetStreamApiError", code: 10058, status: 400, message: "stream name already in use with a different configuration" }, false],
    [new Error("ROOM_PLATFORM is not a platform this build knows"), false],
  ])("%o → %s", (e, expected) => expect(natsNotUpYet(e)).toBe(expected));
});
