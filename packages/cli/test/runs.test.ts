import { eventually, TEST_NATS_URL } from "@scribe/kit/testing";
import { INTERNAL_CALLER } from "@scribe/contracts";
import { createLogger, rpcCall, RpcServer } from "@scribe/kit";
import { getRun, runOps, serveRunOps, startRun, workflow } from "@scribe/workflow";
import { workflowTestEnv, type WorkflowSchema, type WorkflowTestEnv } from "@scribe/workflow/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { runsCommand } from "../src/commands/runs";

const schema = "clitest";
let env: WorkflowTestEnv;
let s: WorkflowSchema;
let healthy = false;
let rpc: RpcServer;

const wf = workflow("cli", z.object({ n: z.number() }))
  .step("fetch", {}, async (ctx) => ctx.input.n)
  .step("summarise", { after: ["fetch"], maxAttempts: 1 }, async (ctx) => {
    if (!healthy) throw new Error("LLM endpoint returned 500");
    return ctx.parents.fetch * 2;
  })
  .build();
const blocking = workflow("cli_block", z.object({}))
  .step("wait", {}, async (ctx) => new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))))
  .build();

beforeAll(async () => {
  env = await workflowTestEnv("cliruns");
  s = await env.openSchema(schema);
  await s.worker([wf, blocking]);
  // The service that runs these workflows answers for them (as transcription does in production).
  rpc = new RpcServer(env.bus, createLogger("clitest", "silent"), schema);
  serveRunOps(rpc, s.sql, schema);
});
afterAll(async () => {
  await rpc?.stop();
  await env.close();
});

async function scribeRuns(...args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await runsCommand([...args, "--service", schema], { NATS_URL: TEST_NATS_URL, NATS_PREFIX: env.prefix }, (l) =>
    lines.push(l),
  );
  return { code, out: lines.join("\n") };
}
const settled = (runId: string, status: string) =>
  eventually(async () => (await getRun(s.sql, runId))?.status === status, { message: `run ${status}` });

describe("scribe runs", () => {
  it("lists runs, shows a failed run's steps with attempts and errors, and retries it", async () => {
    const { runId } = await startRun(s.sql, wf, { n: 21 }, { subject: "transcript-7" });
    await settled(runId, "failed");

    const list = await scribeRuns("list", "--status", "failed");
    expect(list.code).toBe(0);
    expect(list.out).toContain(runId);
    expect(list.out).toContain("cli  failed  subject=transcript-7");
    expect(list.out).toContain("summarise: LLM endpoint returned 500");

    const show = await scribeRuns("show", runId);
    expect(show.out).toMatch(/fetch {2}succeeded {2}attempts 1\/3 {2}queue=default/);
    expect(show.out).toMatch(/summarise {2}failed {2}attempts 1\/1 .*last error: LLM endpoint returned 500/);

    const json = JSON.parse((await scribeRuns("show", runId, "--json")).out) as { steps: { step: string; status: string }[] };
    expect(json.steps.map((s) => `${s.step}:${s.status}`)).toEqual(["fetch:succeeded", "summarise:failed"]);

    healthy = true;
    const retry = await scribeRuns("retry", runId);
    expect(retry).toEqual({ code: 0, out: `retrying ${runId}: 1 step(s) queued again (the service's workers pick them up)` });
    await settled(runId, "succeeded");
    expect((await scribeRuns("retry", runId)).code).toBe(1);
  });

  it("cancels a running run", async () => {
    const { runId } = await startRun(s.sql, blocking, {});
    await eventually(async () => (await getRun(s.sql, runId))?.steps[0]?.status === "running");
    expect(await scribeRuns("cancel", runId, "--reason", "operator test")).toEqual({ code: 0, out: `cancelled ${runId}` });
    expect(await getRun(s.sql, runId)).toMatchObject({ status: "cancelled", error: "operator test" });
    expect((await scribeRuns("cancel", runId)).code).toBe(1);
  });

  it("answers operators only: a user's caller is refused", async () => {
    const alice = { userId: "alice", email: null, via: "bearer" as const };
    await expect(rpcCall(env.bus, runOps(schema).list, { caller: alice })).rejects.toMatchObject({ kind: "forbidden" });
    await expect(rpcCall(env.bus, runOps(schema).list, { caller: INTERNAL_CALLER })).resolves.toBeInstanceOf(Array);
  });

  it("explains its usage", async () => {
    expect((await scribeRuns("show")).code).toBe(2);
    const weird = await scribeRuns("list", "--status", "weird");
    expect(weird.code).toBe(2);
    expect(weird.out).toContain(
      "option '--status <status>' argument 'weird' is invalid. Allowed choices are running, succeeded, failed, cancelled.",
    );
    expect((await scribeRuns("--help")).code).toBe(0);
    expect((await scribeRuns("show", "01a20000-0000-7000-8000-000000000000")).code).toBe(1);
  });
});
