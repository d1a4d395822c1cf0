// `scribe tail <stream>`: print a stream's events, optionally filtered by subject, from a sequence
// or a time, and optionally keep following new ones.
import { parseArgs } from "node:util";
import type { CliCommand } from "../command";
import { DeliverPolicy, type ConsumerConfig } from "@nats-io/jetstream";
import { DLQ_STREAM, STREAMS, type StreamName } from "@scribe/contracts";
import type { Bus, Env } from "@scribe/kit";
import { redactSecrets, redactSecretsInText } from "../redact";
import { withBus } from "./bus-env";

export interface TailOptions {
  stream: string;
  /** Logical subject filter, e.g. `rooms.room_created.>` (the deployment prefix is added). */
  subject?: string;
  fromSeq?: number;
  since?: Date;
  /** Stop after this many events. */
  limit?: number;
  /** Keep waiting for new events instead of stopping at the end of the stream. */
  follow?: boolean;
  signal?: AbortSignal;
}

export interface TailedEvent {
  seq: number;
  time: string;
  subject: string;
  type: string | null;
  id: string | null;
  headers: Record<string, string>;
  data: unknown;
}

export function parseStreamName(name: string): StreamName | typeof DLQ_STREAM.name {
  const upper = name.toUpperCase();
  if (upper === DLQ_STREAM.name || upper in STREAMS) return upper as StreamName;
  throw new Error(`unknown stream ${name}; streams: ${[...Object.keys(STREAMS), DLQ_STREAM.name].join(", ")}`);
}

export async function* tailStream(bus: Bus, opts: TailOptions): AsyncGenerator<TailedEvent> {
  const stream = bus.stream(parseStreamName(opts.stream));
  const config: Partial<ConsumerConfig> = opts.fromSeq
    ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: opts.fromSeq }
    : opts.since
      ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: opts.since.toISOString() }
      : { deliver_policy: DeliverPolicy.All };
  // A single string, not an array: nats-server 2.9 has no multi-filter consumers, and the v3 client
  // refuses an array on 2.9 while it passes a single subject through.
  if (opts.subject) config.filter_subjects = bus.subject(opts.subject) as unknown as string[];
  const info = await bus.jsm.streams.info(stream);
  if (info.state.messages === 0 && !opts.follow) return;
  const consumer = await bus.js.consumers.get(stream, config);
  const messages = await consumer.consume({ max_messages: 256 });
  const abort = () => void messages.close();
  opts.signal?.addEventListener("abort", abort);
  let count = 0;
  try {
    for await (const m of messages) {
      const text = new TextDecoder().decode(m.data);
      let data: unknown = text;
      try {
        data = JSON.parse(text);
      } catch {
        // not JSON (a poison message in the DLQ): show it as text
      }
      const envelope = (typeof data === "object" && data !== null ? data : {}) as { type?: string; id?: string };
      const headers: Record<string, string> = {};
      if (m.headers) for (const [k, v] of m.headers) headers[k] = redactSecretsInText(v.join(","));
      yield {
        seq: m.seq,
        time: new Date(Math.floor(m.info.timestampNanos / 1e6)).toISOString(),
        subject: m.subject,
        type: typeof envelope.type === "string" ? envelope.type : null,
        id: typeof envelope.id === "string" ? envelope.id : null,
        headers,
        data: redactSecrets(data),
      };
      count++;
      if (opts.limit !== undefined && count >= opts.limit) break;
      if (!opts.follow && m.info.pending === 0) break;
    }
  } finally {
    opts.signal?.removeEventListener("abort", abort);
    await messages.close().catch(() => {});
  }
}

export async function tailCommand(env: Env, opts: TailOptions, out: (line: string) => void = console.log): Promise<number> {
  return withBus(env, async (bus) => {
    let n = 0;
    for await (const e of tailStream(bus, opts)) {
      out(JSON.stringify(e));
      n++;
    }
    return n;
  });
}

export const tailCli: CliCommand = {
  name: "tail",
  usage: `tail <stream> [--subject S] [--from-seq N | --since ISO-TIME] [--limit N] [--follow]
                       print a stream's events as JSON lines (streams: ROOMS, MEETINGS, …, DLQ)`,
  async run(args, env) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        subject: { type: "string" },
        "from-seq": { type: "string" },
        since: { type: "string" },
        limit: { type: "string" },
        follow: { type: "boolean" },
      },
    });
    if (!positionals[0]) throw new Error("name a stream: scribe tail ROOMS");
    const controller = new AbortController();
    process.once("SIGINT", () => controller.abort());
    await tailCommand(env, {
      stream: positionals[0],
      subject: values.subject,
      fromSeq: values["from-seq"] ? Number(values["from-seq"]) : undefined,
      since: values.since ? new Date(values.since) : undefined,
      limit: values.limit ? Number(values.limit) : undefined,
      follow: values.follow,
      signal: controller.signal,
    });
    return 0;
  },
};
