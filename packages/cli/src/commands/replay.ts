// `scribe replay`: rebuild the transcript read model from the streams (shadow tables swapped in
// atomically), or re-drive one durable consumer from a stream sequence or a time.
import { act, examples, type CliCommand } from "../command";
import { shownStream } from "../names";
import { DeliverPolicy } from "@nats-io/jetstream";
import { STREAMS, type StreamName } from "@scribe/contracts";
import {
  BaseConfig,
  connectBus,
  connectDb,
  createLogger,
  durableName,
  loadConfig,
  migrate,
  readStream,
  serviceMigrations,
  type Bus,
  type Env,
  type Sql,
} from "@scribe/kit";
import { rebuildReadModel, type RebuildProgress, type RebuildReport } from "@scribe/projection";

export const REPLAY_USAGE = `  replay read-model    rebuild the transcript read model from the streams into shadow tables and
                       swap them in atomically (readers keep being served; the projection pauses
                       for the swap only)
  replay consumer <name> (--from-seq <n> | --from-time <iso>) [--stream <STREAM>]
                       re-drive one durable consumer (e.g. projection.transcripts) from a stream
                       sequence or time: its inbox forgets those events and it receives them again`;

type Out = (line: string) => void;

/** One line per phase change and at most one per second while a phase runs. */
export function progressPrinter(out: Out, now: () => number = () => performance.now()): (p: RebuildProgress) => void {
  let last = 0;
  let lastKey = "";
  return (p) => {
    const key = `${p.phase}:${p.stream ?? ""}`;
    const finished = p.phase === "build" && p.done === p.total;
    if (key === lastKey && !finished && now() - last < 1000) return;
    last = now();
    lastKey = key;
    const rate = `${Math.round(p.eventsPerSecond).toLocaleString("en-US")} events/s`;
    if (p.phase === "build") {
      const pct = p.total > 0 ? ` (${Math.floor((100 * p.done) / p.total)}%)` : "";
      out(
        `building: ${p.stream} ${p.done.toLocaleString("en-US")}/${p.total.toLocaleString("en-US")} events${pct}, ${rate}, ${p.failed} failed`,
      );
    } else if (p.phase === "indexes") out("building indexes of the new tables");
    else if (p.phase === "swap") out(`swapping: ${p.stream} ${p.done} events that arrived during the build folded`);
    else out(`done: ${p.done.toLocaleString("en-US")} events, ${rate}, ${p.failed} failed`);
  };
}

export async function rebuildCommand(env: Env, out: Out = console.log): Promise<RebuildReport> {
  const config = loadConfig(BaseConfig, env);
  const log = createLogger("replay", config.LOG_LEVEL === "info" ? "warn" : config.LOG_LEVEL);
  const sql = connectDb(config.DATABASE_URL, { schema: "projection", max: 4, applicationName: "scribe-replay" });
  const bus = await connectBus({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: "scribe-replay" });
  try {
    await migrate(sql, { schema: "projection", migrations: serviceMigrations("projection") });
    const report = await rebuildReadModel({ sql, bus, log, onProgress: progressPrinter(out) });
    out(
      `read model swapped in: ${report.transcripts} transcripts from ${report.events} events (${report.caughtUp} during the swap) in ${report.seconds.toFixed(1)} s`,
    );
    for (const f of report.failed) out(`  not applied: ${f.stream} seq ${f.seq} event ${f.eventId ?? "?"}: ${f.reason}`);
    return report;
  } finally {
    await bus.close();
    await sql.end({ timeout: 5 });
  }
}

export interface RedriveOptions {
  /** Logical consumer name (`<service>.<what>`), also the inbox key; the service's schema is its first part. */
  name: string;
  stream?: StreamName;
  fromSeq?: number;
  fromTime?: Date;
}

export interface RedriveReport {
  stream: StreamName;
  startSeq: number | null;
  events: number;
  inboxCleared: number;
}

async function findStream(bus: Bus, durable: string): Promise<StreamName> {
  for (const s of Object.keys(STREAMS) as StreamName[]) {
    if (await bus.jsm.consumers.info(bus.stream(s), durable).catch(() => null)) return s;
  }
  throw new Error(`no stream has a consumer named ${durable}`);
}

/**
 * Re-drive: the consumer's inbox forgets the events of the range (else it would skip them as
 * duplicates), then the durable consumer is recreated at the range's first sequence with its
 * configuration unchanged. A running service keeps pulling from it (same name) and receives them again.
 */
export async function redriveConsumer(sql: Sql, bus: Bus, opts: RedriveOptions, out: Out = console.log): Promise<RedriveReport> {
  if ((opts.fromSeq === undefined) === (opts.fromTime === undefined)) throw new Error("give exactly one of --from-seq and --from-time");
  const durable = durableName(opts.name);
  const stream = opts.stream ?? (await findStream(bus, durable));
  const info = await bus.jsm.consumers.info(bus.stream(stream), durable);
  const filter = info.config.filter_subject;
  const logicalFilter = filter && bus.prefix ? filter.slice(bus.prefix.length + 1) : filter;
  let startSeq: number | null = null;
  const ids: string[] = [];
  for await (const batch of readStream(bus, stream, {
    ...(opts.fromTime ? { fromTime: opts.fromTime } : { fromSeq: opts.fromSeq }),
    ...(logicalFilter ? { filterSubject: logicalFilter } : {}),
  })) {
    startSeq ??= batch[0]!.seq;
    for (const m of batch) {
      const id = (m.json() as { id?: unknown }).id;
      if (typeof id === "string" && /^[0-9a-f-]{36}$/i.test(id)) ids.push(id);
    }
    out(`reading ${stream}: ${ids.length} events from seq ${startSeq}`);
  }
  if (startSeq === null) {
    out(`nothing to re-drive: ${stream} has no events for ${opts.name} in that range`);
    return { stream, startSeq, events: 0, inboxCleared: 0 };
  }
  let inboxCleared = 0;
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await sql`delete from inbox where consumer = ${opts.name} and event_id = any(${ids.slice(i, i + 1000)}::uuid[])`;
    inboxCleared += rows.count;
  }
  out(`inbox of ${opts.name}: ${inboxCleared} events forgotten`);
  const { deliver_policy: _policy, opt_start_seq: _seq, opt_start_time: _time, ...config } = info.config;
  await bus.jsm.consumers.delete(bus.stream(stream), durable);
  await bus.jsm.consumers.add(bus.stream(stream), { ...config, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startSeq });
  out(`consumer ${opts.name} recreated at ${stream} seq ${startSeq}: ${ids.length} events will be delivered again`);
  return { stream, startSeq, events: ids.length, inboxCleared };
}

export async function redriveCommand(args: string[], env: Env, out: Out = console.log): Promise<RedriveReport> {
  const [given, ...flags] = args;
  // The durable form (`projection_rooms`) names the same consumer: its first part, the service's
  // schema, is one word, so the first underscore is where the dot was.
  const name = given && !given.includes(".") ? given.replace("_", ".") : given;
  if (!name || !/^[a-z][a-z0-9]*\.[\w.-]+$/.test(name))
    throw new Error(`name a consumer as the metrics and \`scribe streams\` show it, e.g. projection.rooms\n${REPLAY_USAGE}`);
  const opt = (flag: string) => {
    const i = flags.indexOf(flag);
    return i >= 0 ? flags[i + 1] : undefined;
  };
  const fromSeq = opt("--from-seq");
  const fromTime = opt("--from-time");
  const stream = opt("--stream");
  const config = loadConfig(BaseConfig, env);
  if (fromSeq !== undefined && !/^\d+$/.test(fromSeq)) throw new Error("--from-seq takes a stream sequence number");
  if (fromTime !== undefined && Number.isNaN(Date.parse(fromTime))) throw new Error("--from-time takes an ISO-8601 time");
  const streamGiven = stream === undefined ? undefined : shownStream(config.NATS_PREFIX, stream.toUpperCase());
  if (streamGiven !== undefined && !(streamGiven in STREAMS)) throw new Error(`--stream is one of ${Object.keys(STREAMS).join(", ")}`);
  const sql = connectDb(config.DATABASE_URL, { schema: name.split(".")[0]!, max: 2, applicationName: "scribe-replay" });
  const bus = await connectBus({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: "scribe-replay" });
  try {
    return await redriveConsumer(
      sql,
      bus,
      {
        name,
        ...(streamGiven ? { stream: streamGiven as StreamName } : {}),
        ...(fromSeq !== undefined ? { fromSeq: Number(fromSeq) } : {}),
        ...(fromTime !== undefined ? { fromTime: new Date(fromTime) } : {}),
      },
      out,
    );
  } finally {
    await bus.close();
    await sql.end({ timeout: 5 });
  }
}

export const replayCli: CliCommand = {
  name: "replay",
  register(program, ctx) {
    const group = program
      .command("replay")
      .summary("rebuild the transcript read model, or re-drive one consumer from a sequence or time")
      .description("Rebuild the transcript read model from the streams, or re-drive one consumer (see each subcommand's --help).");
    const readModel = group
      .command("read-model")
      .summary("rebuild the transcript read model from the streams (shadow tables, swapped in atomically)")
      .description(
        "Rebuild the transcript read model from the streams into shadow tables and swap them in atomically; readers keep being served and the projection pauses for the swap only. Prints progress.",
      )
      .action(
        act(ctx, async () => {
          await rebuildCommand(ctx.env, ctx.io.out);
          return 0;
        }),
      );
    examples(readModel, "scribe replay read-model");
    const consumer = group
      .command("consumer")
      .summary("re-drive one durable consumer from a stream sequence or time")
      .description(
        "Re-drive one durable consumer: its inbox forgets the events from that point and it receives them again (a running service keeps pulling under the same name).",
      )
      .argument("<name>", "the consumer as `scribe streams` and the metrics name it, e.g. projection.transcripts")
      .option("--from-seq <n>", "from this stream sequence")
      .option("--from-time <time>", "from this ISO-8601 time")
      .option("--stream <stream>", "the consumer's stream (found by itself when omitted)")
      .action(
        act(ctx, async (name: string, opts: { fromSeq?: string; fromTime?: string; stream?: string }) => {
          const flags = [
            ...(opts.fromSeq !== undefined ? ["--from-seq", opts.fromSeq] : []),
            ...(opts.fromTime !== undefined ? ["--from-time", opts.fromTime] : []),
            ...(opts.stream !== undefined ? ["--stream", opts.stream] : []),
          ];
          await redriveCommand([name, ...flags], ctx.env, ctx.io.out);
          return 0;
        }),
      );
    examples(
      consumer,
      "scribe replay consumer projection.rooms --from-seq 1200",
      "scribe replay consumer search.transcripts --from-time 2026-01-31T09:00:00Z",
    );
    examples(group, "scribe replay read-model", "scribe replay consumer projection.rooms --from-seq 1200");
  },
};
