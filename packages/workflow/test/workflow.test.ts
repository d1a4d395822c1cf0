import { eventually } from "@scribe/kit/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  NonRetryableError,
  StepAbort,
  cancelRun,
  defineQueue,
  getRun,
  listRuns,
  queueDurable,
  retryRun,
  workflowMetrics,
  startRun,
  workflow,
  WORKFLOW_STREAM,
} from "../src/index";
import { startChildWorker } from "./support/child";
import { aborted, effects, fileEnv, gate, runInStatus, schemaEnv, type FileEnv, type SchemaEnv } from "./support/env";
import { KILL_QUEUE, killable } from "./support/killable";

let file: FileEnv;
let t: SchemaEnv;
beforeAll(async () => {
  file = await fileEnv("workflow");
});
afterAll(async () => file.close());
beforeEach(async () => {
  t = await schemaEnv(file);
});
afterEach(async () => t.close());

const Input = z.object({ name: z.string() });
const fast = { initialMs: 10, maxMs: 50 };

const runStatus = (runId: string, status: string) => runInStatus(t.sql, runId, status);

describe("running a workflow", () => {
  it("runs steps in DAG order, hands parents' outputs to the join, and succeeds once", async () => {
    const seen: unknown[] = [];
    const wf = workflow("dag", Input)
      .step("a", {}, async (ctx) => ({ greeting: `hello ${ctx.input.name}` }))
      .step("b", { after: ["a"] }, async (ctx) => ctx.parents.a.greeting.length)
      .step("c", { after: ["a"] }, async () => "c")
      .step("join", { after: ["b", "c"] }, async (ctx) => {
        seen.push(ctx.parents);
        return `${ctx.parents.b}:${ctx.parents.c}`;
      })
      .build({
        onSuccess: async (tx, run) => void (await tx`insert into effects (run_id, step, kind) values (${run.id}, 'run', 'succeeded')`),
      });
    await t.worker([wf]);
    const { runId } = await startRun(t.sql, wf, { name: "ada" }, { subject: "transcript-1" });
    const run = await runStatus(runId, "succeeded");
    expect(seen).toEqual([{ b: 9, c: "c" }]);
    expect(run.steps.map((s) => [s.step, s.status, s.attempts])).toEqual([
      ["a", "succeeded", 1],
      ["b", "succeeded", 1],
      ["c", "succeeded", 1],
      ["join", "succeeded", 1],
    ]);
    expect(run).toMatchObject({ subject: "transcript-1", error: null, stepCounts: { total: 4, succeeded: 4 } });
    expect(await effects(t.sql, "succeeded")).toHaveLength(1);
  });

  it("fans out per track and joins all 4 items, each item chained to its own parent item", async () => {
    const TrackInput = z.object({ tracks: z.array(z.object({ key: z.string(), offset: z.number() })) });
    const wf = workflow("fanout", TrackInput)
      .forEach("pad", { items: (input) => input.tracks }, async (ctx) => ({
        padded: `${ctx.item.key}.padded`,
        offset: ctx.item.offset,
        index: ctx.index,
      }))
      .forEachOf(
        "transcribe",
        { of: "pad" },
        async (ctx) => ({ words: [`${ctx.item.padded}@${ctx.item.offset}`], speaker: ctx.index }),
        async (tx, _o, c) =>
          void (await tx`insert into effects (run_id, step, idx, kind) values (${c.run.id}, ${c.step}, ${c.index}, 'commit')`),
      )
      .step("merge", { after: ["transcribe", "pad"] }, async (ctx) => ({
        words: ctx.parents.transcribe.flatMap((t) => t.words),
        speakers: ctx.parents.transcribe.map((t) => t.speaker),
        pads: ctx.parents.pad.length,
      }))
      .build();
    await t.worker([wf]);
    const tracks = [0, 1, 2, 3].map((i) => ({ key: `track-${i}`, offset: i * 1.5 }));
    const { runId } = await startRun(t.sql, wf, { tracks });
    const run = await runStatus(runId, "succeeded");
    const [merge] = await t.sql`select output from workflow_steps where run_id = ${runId} and step = 'merge'`;
    expect(merge!.output).toEqual({
      words: ["track-0.padded@0", "track-1.padded@1.5", "track-2.padded@3", "track-3.padded@4.5"],
      speakers: [0, 1, 2, 3],
      pads: 4,
    });
    expect(run.steps.filter((s) => s.step === "transcribe" && s.index !== null)).toHaveLength(4);
    expect(run.steps.find((s) => s.step === "pad" && s.index === null)).toMatchObject({ itemCount: 4, status: "succeeded" });
    const commits = await effects(t.sql, "commit");
    expect(commits.map((c) => c.idx).sort()).toEqual([0, 1, 2, 3]);
  });

  it("completes an empty fan-out at once and gives its children an empty array", async () => {
    const wf = workflow("empty", z.object({ tracks: z.array(z.string()) }))
      .forEach("per_track", { items: (i) => i.tracks }, async () => 1)
      .forEachOf("after_each", { of: "per_track" }, async () => 2)
      .step("join", { after: ["after_each"] }, async (ctx) => ctx.parents.after_each.length)
      .build();
    await t.worker([wf]);
    const { runId } = await startRun(t.sql, wf, { tracks: [] });
    await runStatus(runId, "succeeded");
    const [join] = await t.sql`select output from workflow_steps where run_id = ${runId} and step = 'join'`;
    expect(join!.output).toBe(0);
  });
});

describe("failures", () => {
  it("retries a failing step with backoff and then succeeds", async () => {
    let calls = 0;
    const wf = workflow("flaky", Input)
      .step("flaky", { maxAttempts: 3, backoff: fast }, async (ctx) => {
        calls++;
        if (ctx.attempt < 3) throw new Error(`transient failure ${ctx.attempt}`);
        return "ok";
      })
      .build();
    await t.worker([wf]);
    const { runId } = await startRun(t.sql, wf, { name: "x" });
    const run = await runStatus(runId, "succeeded");
    expect(calls).toBe(3);
    expect(run.steps[0]).toMatchObject({ status: "succeeded", attempts: 3, lastError: "transient failure 2" });
    const retried = (await workflowMetrics.retried.get()).values.find((v) => v.labels.workflow === "flaky");
    expect(retried?.value).toBe(2);
  });

  it("fails the run with the error once attempts are exhausted, and calls onFailure once", async () => {
    let calls = 0;
    const wf = workflow("broken", Input)
      .step("ok", {}, async () => "fine")
      .step("broken", { after: ["ok"], maxAttempts: 2, backoff: fast }, async () => {
        calls++;
        throw new Error("model server returned 503");
      })
      .step("never", { after: ["broken"] }, async () => "unreachable")
      .build({
        onFailure: async (tx, run, failure) =>
          void (await tx`insert into effects (run_id, step, kind) values (${run.id}, ${failure.step}, ${`failed:${failure.error}:${failure.attempts}`})`),
      });
    await t.worker([wf]);
    const { runId } = await startRun(t.sql, wf, { name: "x" });
    const run = await runStatus(runId, "failed");
    expect(calls).toBe(2);
    expect(run).toMatchObject({ error: "model server returned 503", errorStep: "broken" });
    expect(run.steps.find((s) => s.step === "broken")).toMatchObject({
      status: "failed",
      attempts: 2,
      lastError: "model server returned 503",
    });
    expect(run.steps.some((s) => s.step === "never")).toBe(false);
    expect((await effects(t.sql)).map((e) => e.kind)).toEqual(["failed:model server returned 503:2"]);
  });

  it("fails at once on a non-retryable error", async () => {
    let calls = 0;
    const wf = workflow("corrupt", Input)
      .step("probe", { maxAttempts: 5 }, async () => {
        calls++;
        throw new NonRetryableError("input is corrupt");
      })
      .build();
    await t.worker([wf]);
    const { runId } = await startRun(t.sql, wf, { name: "x" });
    const run = await runStatus(runId, "failed");
    expect(calls).toBe(1);
    expect(run.error).toBe("NonRetryableError: input is corrupt");
    expect(run.steps[0]!.attempts).toBe(1);
  });

  it("also fails at once on errors that say retryable: false (e.g. corrupt media)", async () => {
    const wf = workflow("media", Input)
      .step("mix", { maxAttempts: 5 }, async () => {
        throw Object.assign(new Error("input is corrupt or not a supported audio/video file"), { name: "MediaError", retryable: false });
      })
      .build();
    await t.worker([wf]);
    const { runId } = await startRun(t.sql, wf, { name: "x" });
    expect((await runStatus(runId, "failed")).steps[0]!.attempts).toBe(1);
  });

  it("aborts a step at its timeout and counts it as a failed attempt", async () => {
    const reasons: unknown[] = [];
    const wf = workflow("slow", Input)
      .step("hang", { timeoutMs: 150, maxAttempts: 2, backoff: fast }, async (ctx) => {
        reasons.push(await aborted(ctx.signal));
        throw ctx.signal.reason;
      })
      .build();
    await t.worker([wf]);
    const { runId } = await startRun(t.sql, wf, { name: "x" });
    const run = await runStatus(runId, "failed");
    expect(reasons).toHaveLength(2);
    expect(reasons[0]).toBeInstanceOf(StepAbort);
    expect(run).toMatchObject({ error: "StepAbort: step timed out after 150 ms", errorStep: "hang" });
    expect(run.steps[0]!.attempts).toBe(2);
  });

  it("retries a failed run from its failed step, keeping the outputs of steps that succeeded", async () => {
    let firstCalls = 0;
    let secondCalls = 0;
    // The retried attempt waits here, so the run is still in flight when the second retry is asked for
    // (a retried attempt that failed again would make that second retry legal).
    let recover!: () => void;
    const recovered = new Promise<void>((resolve) => (recover = resolve));
    const wf = workflow("retryable", Input)
      .step("first", {}, async () => {
        firstCalls++;
        return 41;
      })
      .step("second", { after: ["first"], maxAttempts: 1 }, async (ctx) => {
        if (++secondCalls === 1) throw new Error("backend down");
        await recovered;
        return ctx.parents.first + 1;
      })
      .build();
    await t.worker([wf]);
    const { runId } = await startRun(t.sql, wf, { name: "x" });
    await runStatus(runId, "failed");
    await retryRun(t.sql, runId);
    await expect(retryRun(t.sql, runId)).rejects.toMatchObject({ kind: "conflict" });
    recover();
    const run = await runStatus(runId, "succeeded");
    expect(firstCalls).toBe(1);
    expect(run.error).toBeNull();
    expect(run.steps.find((s) => s.step === "second")).toMatchObject({ status: "succeeded", attempts: 1, lastError: "backend down" });
  });
});

describe("hooks and planning errors", () => {
  it("counts a throwing commit hook as a failed attempt and records nothing of it", async () => {
    let hookCalls = 0;
    const wf = workflow("hooked", Input)
      .step(
        "write",
        { maxAttempts: 3, backoff: fast },
        async (ctx) => ctx.attempt,
        async (tx, out, c) => {
          await tx`insert into effects (run_id, step, kind) values (${c.run.id}, 'write', ${`commit:${out}`})`;
          if (++hookCalls === 1) throw new Error("unique violation");
        },
      )
      .build();
    await t.worker([wf]);
    const { runId } = await startRun(t.sql, wf, { name: "x" });
    const run = await runStatus(runId, "succeeded");
    expect(run.steps[0]).toMatchObject({ attempts: 2, lastError: "unique violation" });
    expect((await effects(t.sql)).map((e) => e.kind)).toEqual(["commit:2"]);
  });

  it("still fails the run when the onFailure hook throws (its writes rolled back)", async () => {
    const wf = workflow("hookfail", Input)
      .step("boom", { maxAttempts: 1 }, async () => {
        throw new Error("boom");
      })
      .build({
        onFailure: async (tx, run) => {
          await tx`insert into effects (run_id, step, kind) values (${run.id}, 'hook', 'half-written')`;
          throw new Error("transcripts table locked");
        },
      });
    await t.worker([wf]);
    const { runId } = await startRun(t.sql, wf, { name: "x" });
    expect(await runStatus(runId, "failed")).toMatchObject({ error: "boom" });
    expect(await effects(t.sql)).toEqual([]);
  });

  it("fails the run when a fan-out's items() throws, and refuses to retry what only a new run can re-plan", async () => {
    const wf = workflow("badplan", Input)
      .step("list", {}, async () => "not an array")
      .forEach("each", { after: ["list"], items: (_i, p) => (p.list as unknown as string[]).map((x) => x) }, async () => 1)
      .build();
    await t.worker([wf]);
    const { runId } = await startRun(t.sql, wf, { name: "x" });
    const run = await runStatus(runId, "failed");
    expect(run.errorStep).toBe("each");
    expect(run.error).toMatch(/^items\(\) failed: TypeError: .*map is not a function/);
    expect(run.steps.find((s) => s.step === "list")).toMatchObject({ status: "succeeded" });
    await expect(retryRun(t.sql, runId)).rejects.toMatchObject({
      kind: "conflict",
      message: expect.stringMatching(/failed while planning/),
    });
  });
});

describe("cancellation and reprocessing", () => {
  it("aborts running steps, enqueues nothing more and marks the run cancelled", async () => {
    const started = gate();
    const reasons: unknown[] = [];
    const wf = workflow("cancellable", Input)
      .step("long", {}, async (ctx) => {
        started.open();
        reasons.push(await aborted(ctx.signal));
        throw ctx.signal.reason;
      })
      .step("next", { after: ["long"] }, async () => "never")
      .build();
    const worker = await t.worker([wf]);
    const { runId } = await startRun(t.sql, wf, { name: "x" });
    await started.promise;
    expect(await cancelRun(t.sql, runId, "user cancelled")).toBe(true);
    await eventually(() => reasons.length === 1 && worker.running === 0);
    expect(reasons[0]).toMatchObject({ kind: "run_stopped" });
    const run = await getRun(t.sql, runId);
    expect(run).toMatchObject({ status: "cancelled", error: "user cancelled" });
    expect(run!.steps.map((s) => [s.step, s.status])).toEqual([["long", "cancelled"]]);
    expect(await cancelRun(t.sql, runId)).toBe(false);
  });

  it("a new run for the same subject supersedes the running one", async () => {
    const firstStarted = gate();
    const wf = workflow("reprocess", Input)
      .step("work", {}, async (ctx) => {
        if (ctx.input.name === "first") {
          firstStarted.open();
          await aborted(ctx.signal);
          throw ctx.signal.reason;
        }
        return "done";
      })
      .build();
    await t.worker([wf]);
    const first = await startRun(t.sql, wf, { name: "first" }, { subject: "tr-9", supersede: true });
    await firstStarted.promise;
    const second = await startRun(t.sql, wf, { name: "second" }, { subject: "tr-9", supersede: true });
    expect(second.superseded).toEqual([first.runId]);
    await runStatus(second.runId, "succeeded");
    expect(await getRun(t.sql, first.runId)).toMatchObject({ status: "cancelled", error: `superseded by run ${second.runId}` });
    expect((await listRuns(t.sql, { subject: "tr-9" })).map((r) => r.status)).toEqual(["succeeded", "cancelled"]);
  });

  it("starts in the caller's transaction: nothing is started or enqueued if it rolls back", async () => {
    const wf = workflow("txn", Input)
      .step("only", {}, async () => 1)
      .build();
    await t.sql
      .begin(async (tx) => {
        await startRun(tx, wf, { name: "x" });
        throw new Error("caller's own write failed");
      })
      .catch(() => {});
    expect(await listRuns(t.sql)).toEqual([]);
    const [outbox] = await t.sql`select count(*)::int as n from outbox`;
    expect(outbox!.n).toBe(0);
    await expect(startRun(t.sql, wf, { name: 42 } as never)).rejects.toMatchObject({ kind: "invalid" });
  });
});

describe("delivery guarantees", () => {
  it("acks a redelivered message of a completed step without running it again or enqueuing twice", async () => {
    let calls = 0;
    const wf = workflow("once", Input)
      .step("a", {}, async () => ++calls)
      .step("b", { after: ["a"] }, async () => "b")
      .build();
    const worker = await t.worker([wf]);
    const { runId } = await startRun(t.sql, wf, { name: "x" });
    await runStatus(runId, "succeeded");
    const [a] = await t.sql<{ id: string; token: string }[]>`select id, token from workflow_steps where run_id = ${runId} and step = 'a'`;
    const stepsBefore = (await getRun(t.sql, runId))!.steps.length;
    // The same step message again (as after a lost ack), and a stale copy from an earlier enqueue.
    const subject = file.bus.subject(`workflow.${t.schema}.default.${runId}`);
    await file.bus.js.publish(subject, JSON.stringify({ run: runId, step: a!.id, token: a!.token }), { msgID: "again-1" });
    await file.bus.js.publish(subject, JSON.stringify({ run: runId, step: a!.id, token: "00000000-0000-4000-8000-000000000000" }), {
      msgID: "again-2",
    });
    await eventually(async () => {
      const info = await file.bus.jsm.consumers.info(file.bus.stream(WORKFLOW_STREAM), queueDurable(t.schema, "default"));
      return info.num_pending === 0 && info.num_ack_pending === 0 && worker.running === 0;
    });
    expect(calls).toBe(1);
    expect((await getRun(t.sql, runId))!.steps.length).toBe(stepsBefore);
    const [outbox] = await t.sql`select count(*)::int as n from outbox`;
    expect(outbox!.n).toBe(0);
  });

  it("never runs more steps of a queue at once than its concurrency, across workers", async () => {
    const limited = defineQueue(`limited-${t.schema}`, { concurrency: 2 });
    let inFlight = 0;
    let maxInFlight = 0;
    const release = gate();
    const wf = workflow("limited", z.object({ n: z.number() }))
      .forEach("mix", { queue: limited, items: (i) => Array.from({ length: i.n }, (_, k) => k) }, async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await release.promise;
        inFlight--;
        return "mixed";
      })
      .build();
    // Two workers with 4 local slots each: only the consumer's max_ack_pending can hold them to 2.
    await t.worker([wf], { slots: { [limited.name]: 4 } });
    await t.worker([wf], { slots: { [limited.name]: 4 } });
    const { runId } = await startRun(t.sql, wf, { n: 6 });
    await eventually(
      async () => {
        const info = await file.bus.jsm.consumers.info(file.bus.stream(WORKFLOW_STREAM), queueDurable(t.schema, limited.name));
        return inFlight === 2 && info.num_ack_pending === 2 && info.num_pending === 4;
      },
      { message: "two steps running, four held back by the server" },
    );
    release.open();
    await runStatus(runId, "succeeded");
    expect(maxInFlight).toBe(2);
  });

  it("takes a configured cluster-wide limit in place of the queue's declared concurrency", async () => {
    const declared = defineQueue(`configured-${t.schema}`, { concurrency: 2 });
    const wf = workflow("configured", Input)
      .step("mix", { queue: declared }, async () => "mixed")
      .build();
    await t.worker([wf], { concurrency: { [declared.name]: 5 } });
    const info = await file.bus.jsm.consumers.info(file.bus.stream(WORKFLOW_STREAM), queueDurable(t.schema, declared.name));
    expect(info.config.max_ack_pending).toBe(5);
    const { runId } = await startRun(t.sql, wf, { name: "x" });
    await runStatus(runId, "succeeded");
  });

  it("keeps a long step alive past the ack wait with in-progress acks, and records its progress", async () => {
    const ackWaitMs = 1000;
    let starts = 0;
    const seenProgress = gate();
    const wf = workflow("long", Input)
      .step("transcribe", {}, async (ctx) => {
        starts++;
        ctx.heartbeat({ done: 0.5 });
        await seenProgress.promise;
        // Work for several ack waits: the runner's in-progress acks must keep the message ours.
        const until = Date.now() + 3 * ackWaitMs;
        while (Date.now() < until) await new Promise((r) => setTimeout(r, 100));
        return "done";
      })
      .build();
    await t.worker([wf], { ackWaitMs });
    await t.worker([wf], { ackWaitMs });
    const { runId } = await startRun(t.sql, wf, { name: "x" });
    await eventually(
      async () => {
        const step = (await getRun(t.sql, runId))?.steps[0];
        return step?.status === "running" && JSON.stringify(step.progress) === '{"done":0.5}';
      },
      { message: "progress recorded" },
    );
    seenProgress.open();
    const run = await runStatus(runId, "succeeded");
    expect(starts).toBe(1);
    expect(run.steps[0]).toMatchObject({ attempts: 1, progress: null });
  });

  it("a stopping worker hands its running step back without using an attempt", async () => {
    const first = gate();
    const handoverDone = gate();
    const wf = workflow("handover", Input)
      .step("work", { maxAttempts: 1 }, async (ctx) => {
        first.open();
        await Promise.race([aborted(ctx.signal), handoverDone.promise]);
        if (ctx.signal.aborted) throw ctx.signal.reason;
        return `attempt ${ctx.attempt}`;
      })
      .build();
    const a = await t.worker([wf], { workerId: "a" });
    const { runId } = await startRun(t.sql, wf, { name: "x" });
    await first.promise;
    await a.stop();
    expect((await getRun(t.sql, runId))!.steps[0]).toMatchObject({ status: "queued", attempts: 0 });
    handoverDone.open();
    await t.worker([wf], { workerId: "b" });
    const run = await runStatus(runId, "succeeded");
    expect(run.steps[0]).toMatchObject({ attempts: 1, worker: "b" });
  });

  it("retries a step whose worker was lost during its last own attempt, on the lost-worker budget", async () => {
    const attempts: number[] = [];
    const wf = workflow("lost", Input)
      .step("fragile", { maxAttempts: 1 }, async (ctx) => attempts.push(ctx.attempt))
      .build();
    const { runId } = await startRun(t.sql, wf, { name: "x" });
    // As a worker that claimed the only attempt and was then killed leaves it: running, attempts used up.
    await t.sql`update workflow_steps set status = 'running', attempts = 1, worker = 'dead' where run_id = ${runId}`;
    await t.worker([wf]);
    const run = await runStatus(runId, "succeeded");
    expect(attempts).toEqual([1]);
    expect(run.steps[0]).toMatchObject({
      attempts: 2,
      lostAttempts: 1,
      lastError: "the worker running attempt 1 (dead) stopped responding",
    });
  });

  it("fails a step once lostWorkerAttempts attempts in a row were lost, without running it again", async () => {
    let calls = 0;
    const wf = workflow("lost_again", Input)
      .step("fragile", { maxAttempts: 5 }, async () => ++calls)
      .build();
    const { runId } = await startRun(t.sql, wf, { name: "x" });
    // Two attempts already lost in a row, and the worker of the third gone too.
    await t.sql`update workflow_steps set status = 'running', attempts = 3, lost_attempts = 2, lost_in_a_row = 2, worker = 'dead'
      where run_id = ${runId}`;
    await t.worker([wf], { lostWorkerAttempts: 3 });
    const run = await runStatus(runId, "failed");
    expect(calls).toBe(0);
    expect(run.error).toBe("the worker stopped responding on 3 attempts in a row");
    expect(run.steps[0]).toMatchObject({ status: "failed", attempts: 3, lostAttempts: 3 });
  });

  it("re-runs the step of a worker killed mid-step on another worker; the run completes once", async () => {
    const ackWaitMs = 1500;
    const child = await startChildWorker(file, t, { WF_ROLE: "child", WF_ACK_WAIT_MS: String(ackWaitMs) });
    try {
      const { runId } = await startRun(t.sql, killable, { name: "meeting" });
      await eventually(async () => (await effects(t.sql, "started")).some((e) => e.worker === "child"), {
        message: "child started the slow step",
      });
      await child.kill();

      await t.worker([killable], { ackWaitMs });
      await runStatus(runId, "succeeded");
      const all = await effects(t.sql);
      expect(all.filter((e) => e.kind === "started").map((e) => e.worker)).toEqual(["child", "parent"]);
      expect(all.filter((e) => e.kind !== "started").map((e) => `${e.step}:${e.kind}`)).toEqual([
        "first:commit",
        "slow:commit",
        'last:commit:{"got":1}',
        "run:succeeded",
      ]);
      const run = await getRun(t.sql, runId);
      expect(run!.steps.find((s) => s.step === "slow")).toMatchObject({ attempts: 2, lostAttempts: 1, status: "succeeded" });
      expect(KILL_QUEUE.name).toBe("killable");
    } finally {
      await child.kill();
    }
  });
});
