// The workload of the workflow fault bench, shared by the bench and the worker processes it kills:
// per run, `n` speech-to-text-like steps on a queue of limited concurrency (each holds its slot for
// BENCH_FAULT_STEP_MS, as a model call does) and a join; every step's commit is counted once.
import { setTimeout as sleep } from "node:timers/promises";
import { defineQueue, workflow } from "@scribe/workflow";
import { z } from "zod";

export const FAULT_STEP_MS = Number(process.env.BENCH_FAULT_STEP_MS ?? 400);
export const STT_LIKE_QUEUE = defineQueue("bench-stt", { concurrency: Number(process.env.BENCH_FAULT_CONCURRENCY ?? 4) });

export const faultWorkload = workflow("bench_faults", z.object({ n: z.number().int() }))
  .forEach(
    "transcribe",
    { queue: STT_LIKE_QUEUE, items: (i) => Array.from({ length: i.n }, (_, k) => k) },
    async (ctx) => {
      await sleep(FAULT_STEP_MS, undefined, { signal: ctx.signal });
      return ctx.item;
    },
    async (tx, item, c) => void (await tx`insert into bench_commits (run_id, item) values (${c.run.id}, ${item})`),
  )
  .step("join", { after: ["transcribe"] }, async (ctx) => ctx.parents.transcribe.length)
  .build();
