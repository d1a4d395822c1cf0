// `scribe tail <stream>`: print a stream's events, optionally filtered by subject, from a sequence
// or a time, and optionally keep following new ones.
import { Option } from "commander";
import { act, examples, isoTime, positiveInt, type CliCommand } from "../command";
import { DeliverPolicy, type ConsumerConfig } from "@nats-io/jetstream";
import type { Bus, Env } from "@scribe/kit";
import { shownSubject, STREAM_NAMES, streamArg, subjectArg } from "../names";
import { redactSecrets, redactSecretsInText } from "../redact";
import { withBus } from "./bus-env";

export interface TailOptions {
  stream: string;
  /** Subject filter, e.g. `rooms.room_created.>` (the deployment prefix is added unless given). */
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
  /** Without the deployment prefix, as the contracts name it. */
  subject: string;
  type: string | null;
  id: string | null;
  headers: Record<string, string>;
  data: unknown;
}

export async function* tailStream(bus: Bus, opts: TailOptions): AsyncGenerator<TailedEvent> {
  const stream = bus.stream(streamArg(bus.prefix, opts.stream));
  const config: Partial<ConsumerConfig> = opts.fromSeq
    ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: opts.fromSeq }
    : opts.since
      ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: opts.since.toISOString() }
      : { deliver_policy: DeliverPolicy.All };
  // A single string, not an array: nats-server 2.9 has no multi-filter consumers, and the v3 client
  // refuses an array on 2.9 while it passes a single subject through.
  if (opts.subject) config.filter_subjects = subjectArg(bus, opts.subject) as unknown as string[];
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
        subject: shownSubject(bus, m.subject),
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
  register(program, ctx) {
    const cmd = program
      .command("tail")
      .summary("print a stream's events as JSON lines, filtered by subject, from a sequence or a time")
      .description(
        `Print a stream's events, one JSON object per line (seq, time, subject, type, id, headers, data; secrets redacted), then stop at its end unless --follow. Streams: ${STREAM_NAMES.join(", ")} (any case; the deployment's prefixed name works too).`,
      )
      .argument("<stream>", "the stream, e.g. ROOMS or TRANSCRIPTS")
      .option("--subject <subject>", "only events on this subject (wildcards * and >), e.g. 'transcripts.*.<id>'")
      .addOption(new Option("--from-seq <n>", "start at this stream sequence").argParser(positiveInt).conflicts("since"))
      .option("--since <time>", "start at this ISO-8601 time", isoTime)
      .option("--limit <n>", "stop after this many events", positiveInt)
      .option("--follow", "keep waiting for new events (Ctrl-C stops)")
      .action(
        act(ctx, async (stream: string, opts: { subject?: string; fromSeq?: number; since?: Date; limit?: number; follow?: boolean }) => {
          const controller = new AbortController();
          process.once("SIGINT", () => controller.abort());
          await tailCommand(ctx.env, { stream, ...opts, signal: controller.signal }, ctx.io.out);
          return 0;
        }),
      );
    examples(
      cmd,
      "scribe tail ROOMS --limit 5",
      "scribe tail TRANSCRIPTS --subject 'transcripts.*.<transcript id>' --follow",
      "scribe tail DLQ --since 2026-01-31T09:00:00Z",
    );
  },
};
