// `scribe streams`: every stream with its message count, and every consumer with what it has pending,
// by the names users see (contract stream names, consumer names as in the metrics' labels).
import { act, examples, jsonOption, type CliCommand } from "../command";
import type { Bus, Env } from "@scribe/kit";
import { shownConsumer, STREAM_NAMES } from "../names";
import { withBus } from "./bus-env";

export interface StreamStatus {
  /** Contract name, e.g. `ROOMS`. */
  stream: string;
  /** The server's name, with the deployment prefix (e.g. `UX_ROOMS`). */
  serverName: string;
  messages: number;
  bytes: number;
  firstSeq: number;
  lastSeq: number;
  /** `name` as the metrics' `consumer` label (`projection.rooms`); `durable` the server's name. */
  consumers: { name: string; durable: string; pending: number; ackPending: number; redelivered: number; ackFloor: number }[];
}

export async function streamStatusOf(bus: Bus): Promise<StreamStatus[]> {
  const out: StreamStatus[] = [];
  for (const logical of STREAM_NAMES) {
    const info = await bus.jsm.streams.info(bus.stream(logical)).catch(() => null);
    if (!info) continue;
    const consumers = [];
    for await (const ci of bus.jsm.consumers.list(info.config.name)) {
      consumers.push({
        name: shownConsumer(ci),
        durable: ci.name,
        pending: ci.num_pending,
        ackPending: ci.num_ack_pending,
        redelivered: ci.num_redelivered,
        ackFloor: ci.ack_floor.stream_seq,
      });
    }
    out.push({
      stream: logical,
      serverName: info.config.name,
      messages: info.state.messages,
      bytes: info.state.bytes,
      firstSeq: info.state.first_seq,
      lastSeq: info.state.last_seq,
      consumers,
    });
  }
  return out;
}

export function streamStatus(env: Env): Promise<StreamStatus[]> {
  return withBus(env, streamStatusOf);
}

export function streamLines(status: StreamStatus[]): string[] {
  if (status.length === 0) return ["no streams yet (start a service once to create them)"];
  return status.flatMap((s) => [
    `${s.stream}  messages=${s.messages} bytes=${s.bytes} seq=${s.firstSeq}..${s.lastSeq}`,
    ...s.consumers.map(
      (c) => `  ${c.name}  pending=${c.pending} ack_pending=${c.ackPending} redelivered=${c.redelivered} ack_floor=${c.ackFloor}`,
    ),
  ]);
}

export const streamsCli: CliCommand = {
  name: "streams",
  register(program, ctx) {
    const cmd = program
      .command("streams")
      .summary("streams and their consumers with pending counts")
      .description(
        "Every stream (ROOMS, MEETINGS, …, DLQ, WORKFLOW) with its message count, and each consumer (named as in the metrics, e.g. projection.rooms) with its pending, unacknowledged and redelivered counts. A consumer whose pending grows is behind or stuck.",
      )
      .addOption(jsonOption())
      .action(
        act(ctx, async (opts: { json?: boolean }) => {
          const status = await streamStatus(ctx.env);
          if (opts.json) ctx.io.out(JSON.stringify(status, null, 2));
          else streamLines(status).forEach((l) => ctx.io.out(l));
          return 0;
        }),
      );
    examples(cmd, "scribe streams", "scribe streams --json | jq '.[] | {stream, consumers: [.consumers[] | {name, pending}]}'");
  },
};
