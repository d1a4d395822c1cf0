// `scribe webhooks list|show|redeliver`: outgoing transcript.completed deliveries, asked of the
// notifier over request/reply (it must be running); its dispatcher sends a redelivery.
import { Option } from "commander";
import { runProgram } from "../program";
import { act, examples, jsonOption, positiveInt, type CliCommand, type CliContext } from "../command";
import { DeliveryStatus, INTERNAL_CALLER, notifierOps, type DeliverySummary } from "@scribe/contracts";
import { BaseConfig, connectBus, isAppError, loadConfig, rpcCall, type Env } from "@scribe/kit";

const iso = (d: string | null) => d ?? "-";
const oneLine = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s).replace(/\s*\n\s*/g, " ");

function summaryLine(d: DeliverySummary): string {
  const last = d.last_status_code !== null ? `last=${d.last_status_code}` : d.last_error ? `last=${oneLine(d.last_error)}` : "last=-";
  const next = d.status === "pending" ? `  next=${iso(d.next_attempt_at)}` : "";
  return `${d.id}  ${d.status}  room=${d.room_id ?? "-"}  transcript=${d.transcript_id}  run=${d.run_id ?? "-"}  attempts=${d.attempts}  ${last}${next}  created=${iso(d.created_at)}`;
}

interface WebhooksFlags {
  room?: string;
  status?: string;
  limit?: number;
  json?: boolean;
}

/** `scribe webhooks …` with `argv` after `webhooks`; resolves with the exit code (0 done, 1 not found, 2 usage). */
export async function webhooksCommand(argv: string[], env: Env, out: (line: string) => void = console.log): Promise<number> {
  const code = await runProgram(["webhooks", ...argv], env, { out, err: out, isTty: false }, [webhooksCli]);
  return code === "keep-running" ? 0 : code;
}

async function webhooksAction(
  ctx: CliContext,
  action: "list" | "show" | "redeliver",
  id: string | undefined,
  values: WebhooksFlags,
): Promise<number> {
  const out = ctx.io.out;
  const config = loadConfig(BaseConfig, ctx.env);
  const bus = await connectBus({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: "scribe-cli" });
  const rpcOpts = { timeoutMs: config.RPC_TIMEOUT_MS };
  const caller = INTERNAL_CALLER;
  const print = (v: unknown, text: () => string[]) => (values.json ? out(JSON.stringify(v, null, 2)) : text().forEach((l) => out(l)));
  try {
    if (action === "list") {
      const rows = await rpcCall(
        bus,
        notifierOps.listDeliveries,
        {
          caller,
          channel: "webhook",
          room_id: values.room,
          status: values.status as DeliverySummary["status"] | undefined,
          limit: values.limit ?? 50,
        },
        rpcOpts,
      );
      print(rows, () => (rows.length ? rows.map(summaryLine) : ["no webhook deliveries"]));
      return 0;
    }
    const delivery = await rpcCall(bus, notifierOps.getDelivery, { caller, id: id! }, rpcOpts);
    if (delivery.channel !== "webhook") {
      out(`no webhook delivery ${id}`);
      return 1;
    }
    if (action === "show") {
      const { attempt_log: attempts, ...summary } = delivery;
      print({ ...summary, attempts }, () => [
        summaryLine(summary),
        ...attempts.map(
          (a) =>
            `  #${a.attempt}  ${a.started_at}  ${a.outcome}  ${a.status_code ?? "-"}  ${a.duration_ms} ms  event=${a.event_id ?? "-"}${a.error ? `  error: ${oneLine(a.error)}` : ""}${a.response_excerpt ? `  response: ${oneLine(a.response_excerpt)}` : ""}`,
        ),
      ]);
      return 0;
    }
    await rpcCall(bus, notifierOps.redeliver, { caller, id: delivery.id }, rpcOpts);
    print({ id: delivery.id, redelivered: true }, () => [`redelivering ${delivery.id} (the notifier sends it now)`]);
    return 0;
  } catch (e) {
    if (isAppError(e) && e.kind === "not_found") {
      out(`no webhook delivery ${id}`);
      return 1;
    }
    throw e;
  } finally {
    await bus.close();
  }
}

export const webhooksCli: CliCommand = {
  name: "webhooks",
  register(program, ctx) {
    const group = program
      .command("webhooks")
      .summary("outgoing webhook deliveries: list, show, redeliver")
      .description("Outgoing transcript.completed webhook deliveries, asked of the notifier (it must be running).");
    const list = group
      .command("list")
      .summary("newest deliveries first")
      .option("--room <room_id>", "only this room's")
      .addOption(new Option("--status <status>", "only deliveries in this status").choices(DeliveryStatus.options))
      .addOption(new Option("--limit <n>", "at most this many").argParser(positiveInt).default(50))
      .addOption(jsonOption())
      .action(act(ctx, (opts: WebhooksFlags) => webhooksAction(ctx, "list", undefined, opts)));
    examples(list, "scribe webhooks list --status failed", "scribe webhooks list --room <room id> --json");
    const show = group
      .command("show")
      .summary("the delivery with every attempt (status code, error, the receiver's answer)")
      .argument("<delivery_id>")
      .addOption(jsonOption())
      .action(act(ctx, (id: string, opts: WebhooksFlags) => webhooksAction(ctx, "show", id, opts)));
    examples(show, "scribe webhooks show <delivery id>");
    const redeliver = group
      .command("redeliver")
      .summary("send it again now (same delivery id, new retry round)")
      .argument("<delivery_id>")
      .addOption(jsonOption())
      .action(act(ctx, (id: string, opts: WebhooksFlags) => webhooksAction(ctx, "redeliver", id, opts)));
    examples(redeliver, "scribe webhooks redeliver <delivery id>");
    examples(group, "scribe webhooks list --status pending", "scribe webhooks redeliver <delivery id>");
  },
};
