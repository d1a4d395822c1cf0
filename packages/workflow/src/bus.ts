// The WORKFLOW work-queue stream and one durable pull consumer per (service, queue): a step
// message is removed once acked, and max_ack_pending caps how many of a kind run at once.
import { AckPolicy, DeliverPolicy, DiscardPolicy, RetentionPolicy, StorageType, type ConsumerConfig } from "@nats-io/jetstream";
import { DUPLICATE_WINDOW_MS, ensureStreamReplicas, type Bus } from "@scribe/kit";
import type { Queue } from "./definition";

export const WORKFLOW_STREAM = "WORKFLOW";
const ns = (ms: number) => ms * 1_000_000;

/** Logical subject of a step message: `workflow.<schema>.<queue>.<run id>`. */
export function stepSubject(schema: string, queue: string, runId: string): string {
  return `workflow.${schema}.${queue}.${runId}`;
}

/** Durable consumer name of a queue: `wf_<schema>_<queue>` ('-' kept, JetStream allows it). */
export function queueDurable(schema: string, queue: string): string {
  return `wf_${schema}_${queue}`;
}

/** Create the stream if missing, at the deployment's replicas (every worker calls this; concurrent creation is tolerated). */
export async function ensureWorkflowStream(bus: Bus): Promise<string> {
  const name = bus.stream(WORKFLOW_STREAM);
  if (await bus.jsm.streams.info(name).catch(() => null)) {
    await ensureStreamReplicas(bus, name);
    return name;
  }
  try {
    await bus.jsm.streams.add({
      name,
      subjects: [bus.subject("workflow.>")],
      description: "workflow step messages (work queue): one message per step run to do",
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      discard: DiscardPolicy.Old,
      max_age: 0,
      duplicate_window: ns(DUPLICATE_WINDOW_MS),
      num_replicas: bus.streamReplicas,
    });
  } catch (e) {
    if (!(await bus.jsm.streams.info(name).catch(() => null))) throw e;
  }
  return name;
}

export interface QueueConsumerOptions {
  schema: string;
  queue: Queue;
  /** Time without an ack or in-progress before the step is redelivered (worker presumed dead). */
  ackWaitMs: number;
}

/**
 * Create or bring up to date the queue's durable consumer. The filter subjects of a work-queue
 * stream's consumers must not overlap: one token per schema and queue guarantees it.
 */
export async function ensureQueueConsumer(bus: Bus, opts: QueueConsumerOptions): Promise<string> {
  const stream = bus.stream(WORKFLOW_STREAM);
  const durable = queueDurable(opts.schema, opts.queue.name);
  const config: Partial<ConsumerConfig> & { durable_name: string } = {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: ns(opts.ackWaitMs),
    // Attempts are counted in Postgres; the server must keep redelivering a step whose worker died.
    max_deliver: -1,
    max_ack_pending: opts.queue.concurrency,
    filter_subject: bus.subject(`workflow.${opts.schema}.${opts.queue.name}.>`),
  };
  const existing = await bus.jsm.consumers.info(stream, durable).catch(() => null);
  if (!existing) {
    try {
      await bus.jsm.consumers.add(stream, config);
    } catch (e) {
      if (!(await bus.jsm.consumers.info(stream, durable).catch(() => null))) throw e;
    }
  } else if (existing.config.ack_wait !== config.ack_wait || existing.config.max_ack_pending !== config.max_ack_pending) {
    await bus.jsm.consumers.update(stream, durable, { ack_wait: config.ack_wait!, max_ack_pending: config.max_ack_pending! });
  }
  return durable;
}
