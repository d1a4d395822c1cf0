// NATS connection with JetStream handles and the deployment prefix applied to streams and subjects.
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { streamName, subjectFor } from "@scribe/contracts";

export interface Bus {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  prefix: string;
  /** Replicas of every stream this deployment creates (NATS_STREAM_REPLICAS; 3 on a clustered JetStream). */
  streamReplicas: number;
  /** Prefixed subject for a logical subject (`rooms.room_created.<id>` → `<prefix>.rooms…`). */
  subject(logical: string): string;
  /** Prefixed stream name (`ROOMS` → `<PREFIX>_ROOMS`). */
  stream(logical: string): string;
  close(): Promise<void>;
}

export async function connectBus(opts: { url: string; prefix: string; name: string; streamReplicas?: number }): Promise<Bus> {
  const nc = await connect({
    servers: opts.url.split(","),
    name: opts.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
  });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  return {
    nc,
    js,
    jsm,
    prefix: opts.prefix,
    streamReplicas: opts.streamReplicas ?? 1,
    subject: (logical) => subjectFor(opts.prefix, logical),
    stream: (logical) => streamName(opts.prefix, logical),
    close: async () => {
      if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
    },
  };
}
