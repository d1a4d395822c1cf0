// `scribe runs list|show|retry|cancel`: inspect and repair workflow runs, asked of the service that
// runs them over request/reply (it must be running); its relay and workers do the rest.
import type { CliCommand } from "../command";
import { parseArgs } from "node:util";
import { INTERNAL_CALLER } from "@scribe/contracts";
import { BaseConfig, connectBus, isAppError, loadConfig, rpcCall, type Env } from "@scribe/kit";
import { runOps, RunStatusSchema, type RunDetail, type RunSummary } from "@scribe/workflow";

export const RUNS_USAGE = `usage: scribe runs <list|show|retry|cancel> [options]

  list [--status S] [--workflow W] [--subject ID] [--limit N]   newest runs first
  show <run-id>                                                  the run with every step
  retry <run-id>                                                 re-run a failed run from its failed steps
  cancel <run-id> [--reason TEXT]                                cancel a running run

  --service NAME  the service whose runs these are (default: transcription)
  --json          print JSON instead of text
`;

/** Returns the exit code: 0 done, 1 refused (e.g. not failed) or unknown run, 64 usage error. */
export async function runsCommand(argv: string[], env: Env, out: (line: string) => void = console.log): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        service: { type: "string", default: "transcription" },
        status: { type: "string" },
        workflow: { type: "string" },
        subject: { type: "string" },
        limit: { type: "string", default: "20" },
        reason: { type: "string", default: "cancelled by an operator" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (e) {
    out(`${(e as Error).message}\n${RUNS_USAGE}`);
    return 64;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out(RUNS_USAGE);
    return 0;
  }
  const [action, runId] = positionals;
  const needsId = action === "show" || action === "retry" || action === "cancel";
  if (!action || !["list", "show", "retry", "cancel"].includes(action) || (needsId && !runId)) {
    out(RUNS_USAGE);
    return 64;
  }
  const status = values.status === undefined ? undefined : RunStatusSchema.safeParse(values.status);
  if (status && !status.success) {
    out(`--status must be one of ${RunStatusSchema.options.join(", ")}`);
    return 64;
  }
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) {
    out("--limit must be a positive integer");
    return 64;
  }

  const config = loadConfig(BaseConfig, env);
  const bus = await connectBus({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: "scribe-cli" });
  const ops = runOps(values.service);
  const rpcOpts = { timeoutMs: config.RPC_TIMEOUT_MS };
  const caller = INTERNAL_CALLER;
  const print = (v: unknown, text: () => string[]) => (values.json ? out(JSON.stringify(v, null, 2)) : text().forEach((l) => out(l)));
  try {
    switch (action) {
      case "list": {
        const runs = await rpcCall(
          bus,
          ops.list,
          { caller, status: status?.data, workflow: values.workflow, subject: values.subject, limit },
          rpcOpts,
        );
        print(runs, () => (runs.length ? runs.map(summaryLine) : ["no runs"]));
        return 0;
      }
      case "show": {
        const run = await rpcCall(bus, ops.show, { caller, id: runId! }, rpcOpts);
        print(run, () => detailLines(run));
        return 0;
      }
      case "retry": {
        const { requeued } = await rpcCall(bus, ops.retry, { caller, id: runId! }, rpcOpts);
        print({ runId, requeued }, () => [`retrying ${runId}: ${requeued} step(s) queued again (the service's workers pick them up)`]);
        return 0;
      }
      case "cancel": {
        const { cancelled } = await rpcCall(bus, ops.cancel, { caller, id: runId!, reason: values.reason }, rpcOpts);
        print({ runId, cancelled }, () => [cancelled ? `cancelled ${runId}` : `run ${runId} is not running; nothing to cancel`]);
        return cancelled ? 0 : 1;
      }
    }
    return 64;
  } catch (e) {
    if (isAppError(e) && e.kind !== "timeout") {
      out(e.kind === "not_found" ? `no run ${runId} in ${values.service}` : e.message);
      return 1;
    }
    throw e;
  } finally {
    await bus.close();
  }
}

function summaryLine(r: RunSummary): string {
  const c = r.stepCounts;
  const error = r.error ? `  ${r.errorStep}: ${oneLine(r.error)}` : "";
  return `${r.id}  ${r.workflow}  ${r.status}  subject=${r.subject ?? "-"}  created=${r.createdAt}  steps ${c.succeeded}/${c.total} done${c.running ? `, ${c.running} running` : ""}${c.failed ? `, ${c.failed} failed` : ""}${error}`;
}

function detailLines(r: RunDetail): string[] {
  const lines = [summaryLine(r), `  input: ${oneLine(JSON.stringify(r.input))}`];
  for (const s of r.steps) {
    const name = s.index === null ? s.step : `${s.step}[${s.index}]`;
    if (s.itemCount !== null) {
      lines.push(`  ${name}  ${s.status}  fan-out of ${s.itemCount}`);
      continue;
    }
    const timing = s.durationMs !== null ? `  ${s.durationMs} ms` : s.startedAt ? `  started ${s.startedAt}` : "";
    const retry = s.nextAttemptAt && s.status === "queued" ? `  next attempt ${s.nextAttemptAt}` : "";
    const error = s.lastError ? `  last error: ${oneLine(s.lastError)}` : "";
    lines.push(
      `  ${name}  ${s.status}  attempts ${s.attempts}/${s.maxAttempts}  queue=${s.queue}${s.worker ? `  worker=${s.worker}` : ""}${timing}${retry}${error}`,
    );
  }
  return lines;
}

const oneLine = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}…` : s).replace(/\s*\n\s*/g, " ");

export const runsCli: CliCommand = {
  name: "runs",
  usage: "runs <action> ...    workflow runs: list, show, retry, cancel (scribe runs --help)",
  run: (args, env) => runsCommand(args, env),
};
