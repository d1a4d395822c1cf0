// The workflow of the lost-worker tests, shared by the tests and the child workers they kill:
// `work` hangs in a worker started with WF_HANG=1 (so the test can kill it mid-step), kills its
// own worker when the run asks for it (a step that brings its worker down every time), and
// otherwise succeeds. Queue concurrency 1: a worker that dies holding the slot blocks the queue.
import { z } from "zod";
import { defineQueue, workflow } from "../../src/index";
import { sql } from "./child-db";

export const FAULT_QUEUE = defineQueue("faulty", { concurrency: 1 });

export const faulty = workflow("faulty", z.object({ name: z.string(), crash: z.boolean().optional() }))
  .step(
    "work",
    { queue: FAULT_QUEUE, maxAttempts: 2 },
    async (ctx) => {
      // At-least-once marker, written outside the step's transaction: which worker started which attempt.
      await sql()`insert into effects (run_id, step, idx, kind, worker) values (${ctx.runId}, 'work', ${ctx.attempt}, 'started', ${process.env.WF_ROLE ?? "parent"})`;
      if (ctx.input.crash) process.kill(process.pid, "SIGKILL");
      if (process.env.WF_HANG === "1") await new Promise(() => {});
      return { attempt: ctx.attempt };
    },
    async (tx, out, c) =>
      void (await tx`insert into effects (run_id, step, idx, kind) values (${c.run.id}, 'work', ${out.attempt}, 'commit')`),
  )
  .build();
