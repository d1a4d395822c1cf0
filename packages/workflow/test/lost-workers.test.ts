// A lost worker is not a failed step (issue 20): workers in child processes are killed with SIGKILL
// mid-step (or killed by the step itself), and the step is retried on its own lost-worker budget,
// taken over within the short ack wait instead of the old 30 s, with its effects committed once.
import { AckPolicy, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { eventually } from "@scribe/kit/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getRun, queueDurable, startRun, WORKFLOW_STREAM } from "../src/index";
import { startChildWorker, type ChildWorker } from "./support/child";
import { effects, fileEnv, runInStatus, schemaEnv, type FileEnv, type SchemaEnv } from "./support/env";
import { FAULT_QUEUE, faulty } from "./support/faulty";

let file: FileEnv;
let t: SchemaEnv;
const children: ChildWorker[] = [];
beforeAll(async () => {
  file = await fileEnv("lostworkers");
});
afterAll(async () => file.close());
beforeEach(async () => {
  t = await schemaEnv(file);
});
afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => c.kill()));
  await t.close();
});

const ACK_WAIT_MS = 1500;
/** Child workers start slowly on a loaded machine (each loads the code through tsx). */
const LOADED_MS = 90_000;
const TEST_MS = 240_000;
/** The ack wait every killed worker's steps waited out before (the fault runs). */
const OLD_ACK_WAIT_MS = 30_000;

async function child(env: Record<string, string>): Promise<ChildWorker> {
  const c = await startChildWorker(file, t, { WF_WORKFLOW: "faulty", ...env });
  children.push(c);
  return c;
}

const runStatus = (runId: string, status: string) => runInStatus(t.sql, runId, status);

const startedBy = async (worker: string) => (await effects(t.sql, "started")).some((e) => e.worker === worker);

describe("a step whose worker is lost", () => {
  it(
    "still completes when its worker is killed on every one of the step's own attempts",
    async () => {
      // Given a step of 2 attempts, and two workers that hang in it until they are killed
      const hanging = await Promise.all(
        ["child-1", "child-2"].map((role) => child({ WF_ROLE: role, WF_HANG: "1", WF_ACK_WAIT_MS: String(ACK_WAIT_MS) })),
      );
      const { runId } = await startRun(t.sql, faulty, { name: "evicted" });
      // When whichever runs the step is killed mid-step, twice
      for (let kill = 1; kill <= 2; kill++) {
        const role = await eventually(async () => (await effects(t.sql, "started"))[kill - 1]?.worker, {
          timeoutMs: LOADED_MS,
          message: `attempt ${kill} started`,
        });
        await hanging[role === "child-1" ? 0 : 1]!.kill();
      }
      // Then a healthy worker still runs it: as the step's first own attempt, committed once
      await t.worker([faulty], { ackWaitMs: ACK_WAIT_MS });
      const run = await runStatus(runId, "succeeded");
      expect(run.steps[0]).toMatchObject({ status: "succeeded", attempts: 3, lostAttempts: 2, maxAttempts: 2 });
      const all = await effects(t.sql);
      expect(all.map((e) => `${e.kind}:${e.worker ?? "-"}:${e.idx}`)).toEqual([
        expect.stringMatching(/^started:child-[12]:1$/),
        expect.stringMatching(/^started:child-[12]:1$/),
        "started:parent:1",
        "commit:-:1",
      ]);
      expect(new Set(all.slice(0, 2).map((e) => e.worker)).size).toBe(2);
    },
    TEST_MS,
  );

  it(
    "ends in error, saying so, when the step itself kills its worker every time",
    async () => {
      // Given a step that kills its worker, a lost-worker budget of 3 (above the step's own 2
      // attempts), and four workers: each that takes the step dies, the next takes it over
      const workerEnv = { WF_ACK_WAIT_MS: String(ACK_WAIT_MS), WF_LOST_ATTEMPTS: "3", WF_LOST_BACKOFF_MS: "200" };
      await Promise.all([1, 2, 3, 4].map((n) => child({ ...workerEnv, WF_ROLE: `child-${n}` })));
      const { runId } = await startRun(t.sql, faulty, { name: "poison", crash: true });
      // Then the run failed after 3 lost attempts in a row, with that reason, and never ran it more
      const run = await eventually(
        async () => {
          const r = await getRun(t.sql, runId);
          return r?.status === "failed" ? r : null;
        },
        { timeoutMs: LOADED_MS, message: "the run failed" },
      );
      expect(run).toMatchObject({ error: "the worker stopped responding on 3 attempts in a row", errorStep: "work" });
      expect(run.steps[0]).toMatchObject({ status: "failed", attempts: 3, lostAttempts: 3 });
      const started = (await effects(t.sql, "started")).map((e) => e.worker);
      expect(started).toHaveLength(3);
      expect(new Set(started).size).toBe(3);
      expect(await effects(t.sql, "commit")).toEqual([]);
      expect(children.filter((c) => c.process.signalCode === "SIGKILL")).toHaveLength(3);
    },
    TEST_MS,
  );

  it(
    "is taken over, and its concurrency slot freed, well before the old 30 s ack timeout",
    async () => {
      // Given a queue of concurrency 1 whose slot a worker holds with a step it hangs in (default settings)
      const hung = await child({ WF_ROLE: "child", WF_HANG: "1" });
      const first = await startRun(t.sql, faulty, { name: "first" });
      await eventually(() => startedBy("child"), { timeoutMs: LOADED_MS, message: "the child started the first run's step" });
      await t.worker([faulty]);
      const second = await startRun(t.sql, faulty, { name: "second" });
      const consumer = () => file.bus.jsm.consumers.info(file.bus.stream(WORKFLOW_STREAM), queueDurable(t.schema, FAULT_QUEUE.name));
      await eventually(
        async () => {
          const info = await consumer();
          return info.num_ack_pending === 1 && info.num_pending === 1;
        },
        { message: "the second run's step held back behind the hung one" },
      );
      // And a witness: a message delivered now on a consumer with the old ack wait, never acked
      const witness = await oldAckWaitWitness();
      try {
        // When the worker holding the slot is killed
        await hung.kill();
        // Then both steps run on the live worker before the witness is redelivered
        await runStatus(first.runId, "succeeded");
        await runStatus(second.runId, "succeeded");
        expect(await witness.redelivered()).toBe(false);
        expect((await effects(t.sql, "started")).map((e) => e.worker)).toEqual(["child", "parent", "parent"]);
        expect((await getRun(t.sql, first.runId))!.steps[0]).toMatchObject({ attempts: 2, lostAttempts: 1 });
        expect((await getRun(t.sql, second.runId))!.steps[0]).toMatchObject({ attempts: 1, lostAttempts: 0 });
        expect(await effects(t.sql, "commit")).toHaveLength(2);
      } finally {
        await witness.close();
      }
    },
    TEST_MS,
  );
});

/** A message taken now from a consumer with the old 30 s ack wait and not acked: redelivered once 30 s have passed. */
async function oldAckWaitWitness(): Promise<{ redelivered(): Promise<boolean>; close(): Promise<void> }> {
  const { bus } = file;
  const stream = bus.stream(`WITNESS_${t.schema}`);
  const subject = bus.subject(`witness.${t.schema}`);
  await bus.jsm.streams.add({ name: stream, subjects: [subject], retention: RetentionPolicy.Workqueue, storage: StorageType.Memory });
  await bus.jsm.consumers.add(stream, { durable_name: "witness", ack_policy: AckPolicy.Explicit, ack_wait: OLD_ACK_WAIT_MS * 1_000_000 });
  await bus.js.publish(subject, "tick");
  const taken = await (await bus.js.consumers.get(stream, "witness")).next({ expires: 5000 });
  if (!taken) throw new Error("witness message not delivered");
  return {
    async redelivered() {
      const info = await bus.jsm.consumers.info(stream, "witness");
      return info.num_redelivered > 0 || info.num_ack_pending === 0;
    },
    close: async () => void (await bus.jsm.streams.delete(stream).catch(() => false)),
  };
}
