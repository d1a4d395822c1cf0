// `scribe dlq list|redrive`: dead letters with why they failed, and sending them back to their stream.
import { parseArgs } from "node:util";
import type { CliCommand } from "../command";
import { DLQ_STREAM } from "@scribe/contracts";
import type { Bus, Env } from "@scribe/kit";
import { redactSecretsInText } from "../redact";
import { withBus } from "./bus-env";

export interface DeadLetter {
  seq: number;
  consumer: string;
  reason: string;
  stream: string;
  streamSeq: number;
  subject: string;
  deliveries: number;
  time: string;
  eventId: string | null;
  eventType: string | null;
}

function header(h: { get(k: string): string } | undefined, key: string): string {
  return h?.get(key) ?? "";
}

export async function listDeadLetters(bus: Bus, opts: { consumer?: string } = {}): Promise<DeadLetter[]> {
  const stream = bus.stream(DLQ_STREAM.name);
  const info = await bus.jsm.streams.info(stream).catch(() => null);
  if (!info || info.state.messages === 0) return [];
  const out: DeadLetter[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const m = await bus.jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (!m) continue;
    const consumer = header(m.header, "Scribe-Dlq-Consumer");
    if (opts.consumer && consumer !== opts.consumer) continue;
    let id: string | null = null;
    let type: string | null = null;
    try {
      const ev = JSON.parse(new TextDecoder().decode(m.data)) as { id?: unknown; type?: unknown };
      id = typeof ev.id === "string" ? ev.id : null;
      type = typeof ev.type === "string" ? ev.type : null;
    } catch {
      // a poison message: no envelope to read
    }
    out.push({
      seq: m.seq,
      consumer,
      reason: redactSecretsInText(header(m.header, "Scribe-Dlq-Reason")),
      stream: header(m.header, "Scribe-Dlq-Stream"),
      streamSeq: Number(header(m.header, "Scribe-Dlq-Stream-Seq")),
      subject: header(m.header, "Scribe-Dlq-Subject"),
      deliveries: Number(header(m.header, "Scribe-Dlq-Deliveries")),
      time: header(m.header, "Scribe-Dlq-Time"),
      eventId: id,
      eventType: type,
    });
  }
  return out;
}

/**
 * Publish dead letters back onto their original subject, then remove them from the DLQ. Every
 * consumer of that stream sees the event again; those that applied it already skip it (inbox),
 * so only the consumer that failed applies it.
 */
export async function redriveDeadLetters(bus: Bus, seqs: number[]): Promise<{ redriven: number[]; missing: number[] }> {
  const stream = bus.stream(DLQ_STREAM.name);
  const redriven: number[] = [];
  const missing: number[] = [];
  for (const seq of seqs) {
    const m = await bus.jsm.streams.getMessage(stream, { seq }).catch(() => null);
    const subject = m?.header?.get("Scribe-Dlq-Subject");
    if (!m || !subject) {
      missing.push(seq);
      continue;
    }
    await bus.js.publish(subject, m.data, { msgID: `redrive:${stream}:${seq}` });
    await bus.jsm.streams.deleteMessage(stream, seq);
    redriven.push(seq);
  }
  return { redriven, missing };
}

export async function dlqCommand(
  env: Env,
  args: { action: string; consumer?: string; seqs: number[]; all?: boolean },
  out: (line: string) => void = console.log,
): Promise<void> {
  await withBus(env, async (bus) => {
    if (args.action === "list") {
      const letters = await listDeadLetters(bus, { consumer: args.consumer });
      if (letters.length === 0) out("no dead letters");
      for (const l of letters) {
        out(
          `#${l.seq} ${l.time} consumer=${l.consumer} event=${l.eventType ?? "?"}/${l.eventId ?? "?"} from=${l.stream}#${l.streamSeq} deliveries=${l.deliveries}\n    ${l.reason}`,
        );
      }
      return;
    }
    if (args.action === "redrive") {
      const seqs = args.all || args.consumer ? (await listDeadLetters(bus, { consumer: args.consumer })).map((l) => l.seq) : args.seqs;
      if (seqs.length === 0) throw new Error("name dead letters to redrive: sequence numbers, --consumer <name> or --all");
      const { redriven, missing } = await redriveDeadLetters(bus, seqs);
      out(`redriven: ${redriven.length}${missing.length ? `; not found: ${missing.join(", ")}` : ""}`);
      return;
    }
    throw new Error(`unknown dlq action ${args.action}; use list or redrive`);
  });
}

export const dlqCli: CliCommand = {
  name: "dlq",
  usage: `dlq list [--consumer C]
                       dead letters: which consumer failed, why, and the original event
  dlq redrive (SEQ... | --consumer C | --all)
                       publish dead letters back to their stream (consumers that applied them skip them)`,
  async run(args, env) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { consumer: { type: "string" }, all: { type: "boolean" } },
    });
    await dlqCommand(env, {
      action: positionals[0] ?? "list",
      consumer: values.consumer,
      all: values.all,
      seqs: positionals.slice(1).map(Number),
    });
    return 0;
  },
};
