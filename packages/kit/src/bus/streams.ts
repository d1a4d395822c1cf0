// Idempotent stream set-up: every domain stream keeps history (read models are rebuilt from it);
// the dead-letter stream holds what consumers could not apply.
import { DiscardPolicy, RetentionPolicy, StorageType, type StreamConfig } from "@nats-io/jetstream";
import { DLQ_STREAM, STREAMS, streamSubjects, type StreamName } from "@scribe/contracts";
import type { Bus } from "./connection";

/** Publishes repeated within this window with the same Nats-Msg-Id (event id) are dropped. */
export const DUPLICATE_WINDOW_MS = 5 * 60_000;
const ns = (ms: number) => ms * 1_000_000;

export function streamConfigs(bus: Pick<Bus, "prefix" | "stream" | "streamReplicas">): (Partial<StreamConfig> & { name: string })[] {
  const domain = (Object.keys(STREAMS) as StreamName[]).map((name) => ({
    name: bus.stream(name),
    subjects: [streamSubjects(bus.prefix, name)],
    description: STREAMS[name].description,
  }));
  const dlq = { name: bus.stream(DLQ_STREAM.name), subjects: [streamSubjects(bus.prefix, DLQ_STREAM.name)], description: "dead letters" };
  return [...domain, dlq].map((s) => ({
    ...s,
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: 0,
    duplicate_window: ns(DUPLICATE_WINDOW_MS),
    num_replicas: bus.streamReplicas,
  }));
}

/** Create missing streams and bring existing ones to the declared subjects, dedupe window and replicas. */
export async function ensureStreams(bus: Bus): Promise<void> {
  for (const cfg of streamConfigs(bus)) {
    const name = cfg.name;
    const existing = await bus.jsm.streams.info(name).catch(() => null);
    if (!existing) {
      try {
        await bus.jsm.streams.add(cfg);
        continue;
      } catch (e) {
        // Another process may have created it at the same moment; fall through to the update check.
        if (!(await bus.jsm.streams.info(name).catch(() => null))) throw e;
      }
    }
    const current = (await bus.jsm.streams.info(name)).config;
    const same = JSON.stringify(current.subjects) === JSON.stringify(cfg.subjects) && current.duplicate_window === cfg.duplicate_window;
    if (!same) {
      await bus.jsm.streams.update(name, {
        ...current,
        subjects: cfg.subjects!,
        duplicate_window: cfg.duplicate_window!,
      });
    }
    await ensureStreamReplicas(bus, name);
  }
}

/**
 * Bring an existing stream (a domain stream, the workflow queue, a key-value bucket's) to the
 * deployment's replicas: a deployment that moves to a clustered NATS raises NATS_STREAM_REPLICAS
 * and the server copies the stream to the new peers (or drops copies when it is lowered).
 */
export async function ensureStreamReplicas(bus: Bus, name: string): Promise<void> {
  const current = (await bus.jsm.streams.info(name)).config;
  if (current.num_replicas !== bus.streamReplicas) await bus.jsm.streams.update(name, { ...current, num_replicas: bus.streamReplicas });
}
