// The workflow of the killed-worker test, shared by the test and the child process it kills:
// `slow` blocks forever in the child (so it can be killed mid-step) and completes in the parent.
import { z } from "zod";
import { defineQueue, workflow } from "../../src/index";
import { sql } from "./child-db";

export const KILL_QUEUE = defineQueue("killable", { concurrency: 4 });

export const killable = workflow("killable", z.object({ name: z.string() }))
  .step(
    "first",
    { queue: KILL_QUEUE },
    async () => ({ ok: 1 }),
    async (tx, _out, c) => void (await tx`insert into effects (run_id, step, kind) values (${c.run.id}, 'first', 'commit')`),
  )
  .step(
    "slow",
    { after: ["first"], queue: KILL_QUEUE, maxAttempts: 3 },
    async (ctx) => {
      // At-least-once marker, written outside the step's transaction: shows which worker started it.
      await sql()`insert into effects (run_id, step, kind, worker) values (${ctx.runId}, 'slow', 'started', ${process.env.WF_ROLE ?? "parent"})`;
      if (process.env.WF_ROLE === "child") await new Promise(() => {});
      return { slowDone: ctx.attempt };
    },
    async (tx, _out, c) => void (await tx`insert into effects (run_id, step, kind) values (${c.run.id}, 'slow', 'commit')`),
  )
  .step(
    "last",
    { after: ["slow"], queue: KILL_QUEUE },
    async (ctx) => ({ got: ctx.parents.slow.slowDone }),
    async (tx, out, c) =>
      void (await tx`insert into effects (run_id, step, kind) values (${c.run.id}, 'last', ${`commit:${JSON.stringify(out)}`})`),
  )
  .build({
    onSuccess: async (tx, run) => void (await tx`insert into effects (run_id, step, kind) values (${run.id}, 'run', 'succeeded')`),
  });
