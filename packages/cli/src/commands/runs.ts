// `scribe runs list|show|retry|cancel`: inspect and repair workflow runs, asked of the service that
// runs them over request/reply (it must be running); its relay and workers do the rest.
import { Option, type Command } from "commander";
import { runProgram } from "../program";
import { act, examples, jsonOption, positiveInt, type CliCommand, type CliContext } from "../command";
import { INTERNAL_CALLER } from "@scribe/contracts";
import { BaseConfig, connectBus, isAppError, loadConfig, rpcCall, type Env } from "@scribe/kit";
import { runOps, RunStatusSchema, type RunDetail, type RunStatus, type RunSummary } from "@scribe/workflow";

interface RunsFlags {
  service: string;
  status?: RunStatus;
  workflow?: string;
  subject?: string;
  limit: number;
  reason: string;
  json?: boolean;
}

/** `scribe runs …` with `argv` after `runs`; resolves with the exit code (0 done, 1 refused or unknown run, 2 usage). */
export async function runsCommand(argv: string[], env: Env, out: (line: string) => void = console.log): Promise<number> {
  const code = await runProgram(["runs", ...argv], env, { out, err: out, isTty: false }, [runsCli]);
  return code === "keep-running" ? 0 : code;
}

async function runsAction(
  ctx: CliContext,
  action: "list" | "show" | "retry" | "cancel",
  runId: string | undefined,
  values: RunsFlags,
): Promise<number> {
  const out = ctx.io.out;
  const config = loadConfig(BaseConfig, ctx.env);
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
          { caller, status: values.status, workflow: values.workflow, subject: values.subject, limit: values.limit },
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
      `  ${name}  ${s.status}  attempts ${s.attempts}/${s.maxAttempts}${s.lostAttempts ? ` (${s.lostAttempts} lost with their worker)` : ""}  queue=${s.queue}${s.worker ? `  worker=${s.worker}` : ""}${timing}${retry}${error}`,
    );
  }
  return lines;
}

const oneLine = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}…` : s).replace(/\s*\n\s*/g, " ");

export const runsCli: CliCommand = {
  name: "runs",
  register(program, ctx) {
    const group = program
      .command("runs")
      .summary("workflow runs: list, show, retry, cancel")
      .description("Inspect and repair workflow runs, asked of the service that runs them (it must be running).")
      .addOption(new Option("--service <name>", "the service whose runs these are").default("transcription"));
    // The group's --service reaches every subcommand, before or after its name.
    const flags = (cmd: Command) => cmd.optsWithGlobals<RunsFlags>();
    const list = group
      .command("list")
      .summary("newest runs first")
      .addOption(new Option("--status <status>", "only runs in this status").choices(RunStatusSchema.options))
      .option("--workflow <name>", "only runs of this workflow")
      .option("--subject <id>", "only runs about this subject (e.g. a transcript id)")
      .addOption(new Option("--limit <n>", "at most this many").argParser(positiveInt).default(20))
      .addOption(jsonOption())
      .action(act(ctx, (_opts: unknown, cmd: Command) => runsAction(ctx, "list", undefined, flags(cmd))));
    examples(list, "scribe runs list --status failed", "scribe runs list --subject <transcript id> --json");
    const show = group
      .command("show")
      .summary("the run with every step: status, attempts, timing, last error")
      .argument("<run-id>")
      .addOption(jsonOption())
      .action(act(ctx, (runId: string, _opts: unknown, cmd: Command) => runsAction(ctx, "show", runId, flags(cmd))));
    examples(show, "scribe runs show <run id>");
    const retry = group
      .command("retry")
      .summary("re-run a failed run from its failed steps")
      .argument("<run-id>")
      .addOption(jsonOption())
      .action(act(ctx, (runId: string, _opts: unknown, cmd: Command) => runsAction(ctx, "retry", runId, flags(cmd))));
    examples(retry, "scribe runs retry <run id>");
    const cancel = group
      .command("cancel")
      .summary("cancel a running run")
      .argument("<run-id>")
      .option("--reason <text>", "why (kept with the run)", "cancelled by an operator")
      .addOption(jsonOption())
      .action(act(ctx, (runId: string, _opts: unknown, cmd: Command) => runsAction(ctx, "cancel", runId, flags(cmd))));
    examples(cancel, 'scribe runs cancel <run id> --reason "stuck on a bad file"');
    examples(group, "scribe runs list --status running", "scribe runs show <run id>", "scribe runs retry <run id>");
  },
};
