// Operators' inspection and repair of workflow runs over request/reply (`scribe runs`): the service
// that runs the workflows answers for its own tables; nobody else reads them. Internal callers only.
import { defineOp, withCaller, type Caller } from "@scribe/contracts";
import { Forbidden, NotFound, type Db, type RpcServer } from "@scribe/kit";
import { z } from "zod";
import { cancelRun, retryRun } from "./engine";
import { getRun, listRuns, RunDetail, RunStatusSchema, RunSummary } from "./queries";

/** The run operations of `service` (`rpc.<service>.runs_*`). */
export function runOps(service: string) {
  return {
    list: defineOp(
      `${service}.runs_list`,
      withCaller({
        status: RunStatusSchema.optional(),
        workflow: z.string().optional(),
        subject: z.string().optional(),
        limit: z.number().int().min(1).max(1000).default(20),
      }),
      z.array(RunSummary),
    ),
    show: defineOp(`${service}.runs_show`, withCaller({ id: z.string() }), RunDetail),
    retry: defineOp(`${service}.runs_retry`, withCaller({ id: z.string() }), z.object({ requeued: z.number().int() })),
    cancel: defineOp(`${service}.runs_cancel`, withCaller({ id: z.string(), reason: z.string() }), z.object({ cancelled: z.boolean() })),
  } as const;
}

function onlyOperators(caller: Caller): void {
  if (caller.via !== "internal") throw Forbidden("Only operators may inspect workflow runs");
}

/** Serve `runOps(service)` from the workflow tables in `sql`. */
export function serveRunOps(rpc: RpcServer, sql: Db, service: string): void {
  const ops = runOps(service);
  rpc.handle(ops.list, async ({ caller, status, workflow, subject, limit }) => {
    onlyOperators(caller);
    return listRuns(sql, { status, workflow, subject, limit });
  });
  rpc.handle(ops.show, async ({ caller, id }) => {
    onlyOperators(caller);
    const run = await getRun(sql, id);
    if (!run) throw NotFound(`No run ${id}`);
    return run;
  });
  rpc.handle(ops.retry, async ({ caller, id }) => {
    onlyOperators(caller);
    return retryRun(sql, id);
  });
  rpc.handle(ops.cancel, async ({ caller, id, reason }) => {
    onlyOperators(caller);
    return { cancelled: await cancelRun(sql, id, reason) };
  });
}
