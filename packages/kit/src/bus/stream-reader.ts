// Reading a range of a stream without a durable consumer (rebuilds, re-drives, tools): an ordered,
// ephemeral consumer from a start sequence or time, in batches, up to a given last sequence.
import { DeliverPolicy, type JsMsg } from "@nats-io/jetstream";
import type { Bus } from "./connection";

export interface StreamRange {
  /** First sequence to read (default: the stream's first). */
  fromSeq?: number;
  /** Or the first message at or after this time. */
  fromTime?: Date;
  /** Last sequence to read (default: the stream's last sequence when reading starts). */
  toSeq?: number;
  /** Logical filter subject (default: the whole stream). */
  filterSubject?: string;
  batchSize?: number;
}

/** The stream's first and last sequence (0/0 when it is empty). */
export async function streamBounds(bus: Bus, stream: string): Promise<{ first: number; last: number; messages: number }> {
  const info = await bus.jsm.streams.info(bus.stream(stream));
  return { first: info.state.first_seq, last: info.state.last_seq, messages: info.state.messages };
}

/** Batches of messages in sequence order; ends at `toSeq` (messages deleted in between are skipped). */
export async function* readStream(bus: Bus, stream: string, range: StreamRange = {}): AsyncGenerator<JsMsg[]> {
  const bounds = await streamBounds(bus, stream);
  const to = range.toSeq ?? bounds.last;
  const from = range.fromSeq ?? bounds.first;
  if (bounds.messages === 0 || to < Math.max(from, bounds.first)) return;
  // A start time past the last message: nothing to read, no need to wait out a fetch.
  if (range.fromTime) {
    const last = await bus.jsm.streams.getMessage(bus.stream(stream), { seq: bounds.last }).catch(() => null);
    if (last && last.time < range.fromTime) return;
  }
  const consumer = await bus.js.consumers.get(bus.stream(stream), {
    ...(range.fromTime
      ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: range.fromTime.toISOString() }
      : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: Math.max(from, bounds.first) }),
    ...(range.filterSubject ? { filter_subjects: bus.subject(range.filterSubject) } : {}),
  });
  const batchSize = range.batchSize ?? 500;
  let idle = 0;
  for (;;) {
    const batch: JsMsg[] = [];
    let pendingAfter = -1;
    let reachedEnd = false;
    const msgs = await consumer.fetch({ max_messages: batchSize, expires: 1000 });
    for await (const m of msgs) {
      if (m.seq > to) {
        reachedEnd = true;
        break;
      }
      batch.push(m);
      pendingAfter = m.info.pending;
      if (m.seq >= to) {
        reachedEnd = true;
        break;
      }
    }
    if (batch.length > 0) yield batch;
    // Done at `to`, or when nothing more matches (a filter, a start time after the last message).
    if (reachedEnd || pendingAfter === 0) return;
    if (batch.length === 0 && ((await consumer.info()).num_pending === 0 || ++idle >= 3)) return;
    if (batch.length > 0) idle = 0;
  }
}
