// `scribe webhooks list|show|redeliver`: outgoing transcript.completed deliveries, asked of the
// notifier over request/reply (it must be running); its dispatcher sends a redelivery.
import type { CliCommand } from "../command";
import { parseArgs } from "node:util";
import { DeliveryStatus, INTERNAL_CALLER, notifierOps, type DeliverySummary } from "@scribe/contracts";
import { BaseConfig, connectBus, isAppError, loadConfig, rpcCall, type Env } from "@scribe/kit";

export const WEBHOOKS_USAGE = `usage: scribe webhooks <list|show|redeliver> [options]

  list [--room ROOM_ID] [--status S] [--limit N]   newest deliveries first (S: ${DeliveryStatus.options.join(", ")})
  show <delivery_id>                                 the delivery with every attempt
  redeliver <delivery_id>                            send it again now (same delivery id, new retry round)

  --json   print JSON instead of text
`;

const iso = (d: string | null) => d ?? "-";
const oneLine = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s).replace(/\s*\n\s*/g, " ");

function summaryLine(d: DeliverySummary): string {
  const last = d.last_status_code !== null ? `last=${d.last_status_code}` : d.last_error ? `last=${oneLine(d.last_error)}` : "last=-";
  const next = d.status === "pending" ? `  next=${iso(d.next_attempt_at)}` : "";
  return `${d.id}  ${d.status}  room=${d.room_id ?? "-"}  transcript=${d.transcript_id}  run=${d.run_id ?? "-"}  attempts=${d.attempts}  ${last}${next}  created=${iso(d.created_at)}`;
}

/** Returns the exit code: 0 done, 1 not found, 64 usage error. */
export async function webhooksCommand(argv: string[], env: Env, out: (line: string) => void = console.log): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        room: { type: "string" },
        status: { type: "string" },
        limit: { type: "string", default: "50" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (e) {
    out(`${(e as Error).message}\n${WEBHOOKS_USAGE}`);
    return 64;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out(WEBHOOKS_USAGE);
    return 0;
  }
  const [action, id] = positionals;
  if (!action || !["list", "show", "redeliver"].includes(action) || (action !== "list" && !id)) {
    out(WEBHOOKS_USAGE);
    return 64;
  }
  const status = values.status === undefined ? undefined : DeliveryStatus.safeParse(values.status);
  if (status && !status.success) {
    out(`--status must be one of ${DeliveryStatus.options.join(", ")}`);
    return 64;
  }
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) {
    out("--limit must be a positive integer");
    return 64;
  }
  const config = loadConfig(BaseConfig, env);
  const bus = await connectBus({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: "scribe-cli" });
  const rpcOpts = { timeoutMs: config.RPC_TIMEOUT_MS };
  const caller = INTERNAL_CALLER;
  const print = (v: unknown, text: () => string[]) => (values.json ? out(JSON.stringify(v, null, 2)) : text().forEach((l) => out(l)));
  try {
    if (action === "list") {
      const rows = await rpcCall(
        bus,
        notifierOps.listDeliveries,
        { caller, channel: "webhook", room_id: values.room, status: status?.data, limit },
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
  usage: "webhooks <action> ...  outgoing webhook deliveries: list, show, redeliver (scribe webhooks --help)",
  run: (args, env) => webhooksCommand(args, env),
};
