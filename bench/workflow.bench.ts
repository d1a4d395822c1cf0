// Workflow runner throughput: steps/s of a wide fan-out (parallel) and of a chain (one step after
// another, i.e. per-step latency), against raw JetStream work-queue publish + fetch + ack of the
// same number of messages in the same run. The runner adds per step: a claim transaction, a
// completion transaction with the outbox row of the next step, and the relay's publish.
import { AckPolicy, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import type { Bus } from "@scribe/kit";
import { getRun, startRun, workflow, type Workflow } from "@scribe/workflow";
import { workflowTestEnv } from "@scribe/workflow/testing";
import { z } from "zod";
import { report, time } from "./report";

const FAN_OUT = Number(process.env.BENCH_WF_FANOUT ?? 400);
const CHAIN = Number(process.env.BENCH_WF_CHAIN ?? 100);

/** Raw baseline: publish `n` messages to a work-queue stream and fetch + ack them all; `sequential` publishes the next only after acking the previous. */
async function rawWorkQueue(bus: Bus, n: number, sequential: boolean): Promise<number> {
  const stream = bus.stream(`RAWWQ${sequential ? "SEQ" : "PAR"}`);
  const subject = bus.subject(`rawwq${sequential ? "seq" : "par"}.x`);
  await bus.jsm.streams.add({ name: stream, subjects: [subject], retention: RetentionPolicy.Workqueue, storage: StorageType.File });
  await bus.jsm.consumers.add(stream, { durable_name: "raw", ack_policy: AckPolicy.Explicit, max_ack_pending: 64 });
  const consumer = await bus.js.consumers.get(stream, "raw");
  try {
    return await time(async () => {
      if (!sequential) {
        await Promise.all(Array.from({ length: n }, (_, i) => bus.js.publish(subject, JSON.stringify({ i }))));
        let seen = 0;
        while (seen < n) {
          // At most what is left: a round asking for more would wait out its expiry for nothing.
          for await (const m of await consumer.fetch({ max_messages: Math.min(16, n - seen), expires: 1000 })) {
            m.ack();
            seen++;
          }
        }
        return;
      }
      for (let i = 0; i < n; i++) {
        await bus.js.publish(subject, JSON.stringify({ i }));
        const m = await consumer.next({ expires: 1000 });
        if (!m) throw new Error("raw chain: message not delivered");
        await m.ackAck();
      }
    });
  } finally {
    await bus.jsm.streams.delete(stream).catch(() => {});
  }
}

/** A chain of `n` steps, each after the previous (built step by step; the names are only for the DAG). */
function chainWorkflow(n: number): Workflow<{ n: number }, unknown> {
  let b = workflow("bench_chain", z.object({ n: z.number() })).step("s0", {}, async () => 0) as unknown as {
    step: (name: string, opts: { after: string[] }, run: () => Promise<number>) => unknown;
    build: () => Workflow<{ n: number }, unknown>;
  };
  for (let i = 1; i < n; i++) b = b.step(`s${i}`, { after: [`s${i - 1}`] }, async () => i) as typeof b;
  return b.build();
}

export default async function bench(): Promise<void> {
  const env = await workflowTestEnv("benchwf");
  const { bus } = env;
  const { sql, worker } = await env.openSchema("benchwf");
  const fan = workflow("bench_fan", z.object({ n: z.number() }))
    .forEach("item", { items: (i) => Array.from({ length: i.n }, (_, k) => k) }, async (ctx) => ctx.item * 2)
    .step("join", { after: ["item"] }, async (ctx) => ctx.parents.item.length)
    .build();
  const chain = chainWorkflow(CHAIN);
  await worker([fan, chain]);
  const finished = async (runId: string) => {
    for (;;) {
      const run = await getRun(sql, runId);
      if (run?.status === "succeeded") return;
      if (run && run.status !== "running") throw new Error(`bench run ${run.status}: ${run.error}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  try {
    // Warm-up: JIT, prepared statements, consumer creation.
    await finished((await startRun(sql, fan, { n: 20 })).runId);

    const rawPar = await rawWorkQueue(bus, FAN_OUT + 1, false);
    const fanS = await time(async () => finished((await startRun(sql, fan, { n: FAN_OUT })).runId));
    const rawParRate = { name: "raw work-queue publish+fetch+ack (parallel)", value: (FAN_OUT + 1) / rawPar, unit: "msg/s" };
    report(rawParRate);
    report({ name: `workflow fan-out of ${FAN_OUT} + join`, value: (FAN_OUT + 1) / fanS, unit: "steps/s" }, rawParRate);

    const rawSeq = await rawWorkQueue(bus, CHAIN, true);
    const chainS = await time(async () => finished((await startRun(sql, chain, { n: CHAIN })).runId));
    const rawSeqRate = { name: "raw work-queue publish→fetch→ack, one at a time", value: CHAIN / rawSeq, unit: "msg/s" };
    report(rawSeqRate);
    report({ name: `workflow chain of ${CHAIN} steps`, value: CHAIN / chainS, unit: "steps/s" }, rawSeqRate);
    report({ name: "workflow step-to-step latency in a chain", value: (chainS / CHAIN) * 1000, unit: "ms" });
  } finally {
    await env.close();
  }
}
