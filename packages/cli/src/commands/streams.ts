// `scribe streams`: every stream with its message count, and every consumer with what it has pending.
import type { CliCommand } from "../command";
import { DLQ_STREAM, STREAMS } from "@scribe/contracts";
import { BaseConfig, connectBus, loadConfig, type Env } from "@scribe/kit";
import { WORKFLOW_STREAM } from "@scribe/workflow";

export interface StreamStatus {
  stream: string;
  messages: number;
  bytes: number;
  firstSeq: number;
  lastSeq: number;
  consumers: { name: string; pending: number; ackPending: number; redelivered: number; ackFloor: number }[];
}

export async function streamStatus(env: Env): Promise<StreamStatus[]> {
  const config = loadConfig(BaseConfig, env);
  const bus = await connectBus({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: "scribe-cli" });
  try {
    const out: StreamStatus[] = [];
    for (const logical of [...Object.keys(STREAMS), DLQ_STREAM.name, WORKFLOW_STREAM]) {
      const info = await bus.jsm.streams.info(bus.stream(logical)).catch(() => null);
      if (!info) continue;
      const consumers = [];
      for await (const ci of bus.jsm.consumers.list(info.config.name)) {
        consumers.push({
          name: ci.name,
          pending: ci.num_pending,
          ackPending: ci.num_ack_pending,
          redelivered: ci.num_redelivered,
          ackFloor: ci.ack_floor.stream_seq,
        });
      }
      out.push({
        stream: info.config.name,
        messages: info.state.messages,
        bytes: info.state.bytes,
        firstSeq: info.state.first_seq,
        lastSeq: info.state.last_seq,
        consumers,
      });
    }
    return out;
  } finally {
    await bus.close();
  }
}

export async function streamsCommand(env: Env, out: (line: string) => void = console.log): Promise<void> {
  const status = await streamStatus(env);
  if (status.length === 0) out("no streams yet (start a service once to create them)");
  for (const s of status) {
    out(`${s.stream}  messages=${s.messages} bytes=${s.bytes} seq=${s.firstSeq}..${s.lastSeq}`);
    for (const c of s.consumers) {
      out(`  ${c.name}  pending=${c.pending} ack_pending=${c.ackPending} redelivered=${c.redelivered} ack_floor=${c.ackFloor}`);
    }
  }
}

export const streamsCli: CliCommand = {
  name: "streams",
  usage: "streams              streams and consumers with pending counts",
  async run(_args, env) {
    await streamsCommand(env);
    return 0;
  },
};
