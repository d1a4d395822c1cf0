// `scribe dlq list|redrive`: dead letters with why they failed, and sending them back to their stream.
import { act, examples, jsonOption, type CliCommand } from "../command";
import { DLQ_STREAM } from "@scribe/contracts";
import type { Bus } from "@scribe/kit";
import { sameConsumer, shownStream, shownSubject } from "../names";
import { redactSecretsInText } from "../redact";
import { withBus } from "./bus-env";

export interface DeadLetter {
  seq: number;
  /** As the metrics name it, e.g. `projection.rooms`. */
  consumer: string;
  reason: string;
  /** The stream it came from (contract name) and its sequence there. */
  stream: string;
  streamSeq: number;
  /** Without the deployment prefix. */
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
    if (opts.consumer && !sameConsumer(consumer, opts.consumer)) continue;
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
      stream: shownStream(bus.prefix, header(m.header, "Scribe-Dlq-Stream")),
      streamSeq: Number(header(m.header, "Scribe-Dlq-Stream-Seq")),
      subject: shownSubject(bus, header(m.header, "Scribe-Dlq-Subject")),
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

export function deadLetterLines(letters: DeadLetter[]): string[] {
  if (letters.length === 0) return ["no dead letters"];
  return letters.map(
    (l) =>
      `#${l.seq} ${l.time} consumer=${l.consumer} event=${l.eventType ?? "?"}/${l.eventId ?? "?"} from=${l.stream}#${l.streamSeq} deliveries=${l.deliveries}\n    ${l.reason}`,
  );
}

export const dlqCli: CliCommand = {
  name: "dlq",
  register(program, ctx) {
    const group = program
      .command("dlq")
      .summary("dead letters: list them (which consumer failed and why), redrive them")
      .description("Events a consumer could not apply land in the DLQ stream with the consumer, the reason and the original event.");
    const list = group
      .command("list")
      .summary("dead letters: which consumer failed, why, and the original event")
      .option("--consumer <name>", "only this consumer's, e.g. projection.rooms")
      .addOption(jsonOption())
      .action(
        act(ctx, async (opts: { consumer?: string; json?: boolean }) => {
          const letters = await withBus(ctx.env, (bus) => listDeadLetters(bus, { consumer: opts.consumer }));
          if (opts.json) ctx.io.out(JSON.stringify(letters, null, 2));
          else deadLetterLines(letters).forEach((l) => ctx.io.out(l));
          return 0;
        }),
      );
    examples(list, "scribe dlq list", "scribe dlq list --consumer projection.rooms --json");
    const redrive = group
      .command("redrive")
      .summary("publish dead letters back to their stream (consumers that applied them skip them)")
      .argument("[seq...]", "DLQ sequence numbers (from `scribe dlq list`)")
      .option("--consumer <name>", "every dead letter of this consumer")
      .option("--all", "every dead letter")
      .addOption(jsonOption())
      .action(
        act(ctx, async (seqArgs: string[], opts: { consumer?: string; all?: boolean; json?: boolean }) => {
          const seqs = seqArgs.map((s) => {
            if (!/^\d+$/.test(s)) throw new Error(`not a DLQ sequence number: ${s}`);
            return Number(s);
          });
          const result = await withBus(ctx.env, async (bus) => {
            const chosen = opts.all || opts.consumer ? (await listDeadLetters(bus, { consumer: opts.consumer })).map((l) => l.seq) : seqs;
            if (chosen.length === 0) throw new Error("name dead letters to redrive: sequence numbers, --consumer <name> or --all");
            return redriveDeadLetters(bus, chosen);
          });
          ctx.io.out(
            opts.json
              ? JSON.stringify(result)
              : `redriven: ${result.redriven.length}${result.missing.length ? `; not found: ${result.missing.join(", ")}` : ""}`,
          );
          return result.missing.length ? 1 : 0;
        }),
      );
    examples(redrive, "scribe dlq redrive 12 13", "scribe dlq redrive --consumer projection.rooms", "scribe dlq redrive --all");
    examples(group, "scribe dlq list", "scribe dlq redrive --consumer projection.rooms");
  },
};
