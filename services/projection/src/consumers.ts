// The projection's consumers: TRANSCRIPTS, ROOMS, RECORDINGS and MEETINGS events folded into the read model.
// Every transaction takes the feed lock first (change_seq in commit order; a rebuild's swap can hold
// the consumers off), applies, and announces the transcript version it now holds.
import type { ScribeEvent, StreamName } from "@scribe/contracts";
import type { BatchHandler, ConsumerRunner, EventHandlers, ServiceRuntime, Tx } from "@scribe/kit";
import { InOrderPlan, LIVE_TABLES, applyEvent, applyInOrder, planInOrder, takeFeedLock } from "./store";

async function applyLive(tx: Tx, ev: ScribeEvent): Promise<void> {
  await takeFeedLock(tx);
  await applyEvent(tx, LIVE_TABLES, ev, { announce: true });
}

/**
 * A batch as `applyLive` one event after another, in one round trip: the feed lock is sent first
 * and the batch's statements right behind it (a transaction runs them in the order sent, so no row
 * is written before the lock is held; see applyInOrder). The batch comes planned (`planInOrder`,
 * the consumer's prepareBatch) unless the inbox knew one of its events.
 */
const applyLiveBatch: BatchHandler = async (tx, events, prepared) => {
  const batch = prepared instanceof InOrderPlan ? prepared : events.map((e) => e.event);
  const [lock, applied] = await Promise.allSettled([takeFeedLock(tx), applyInOrder(tx, LIVE_TABLES, batch, { announce: true })]);
  if (lock.status === "rejected") throw lock.reason;
  if (applied.status === "rejected") throw applied.reason;
};

/** Which events the read model folds, per stream (the rebuild reads the same streams). */
export const FOLDED: { stream: StreamName; consumer: string; handlers: EventHandlers }[] = [
  {
    stream: "ROOMS",
    consumer: "projection.rooms",
    handlers: { "room.created": applyLive, "room.updated": applyLive, "room.deleted": applyLive },
  },
  { stream: "RECORDINGS", consumer: "projection.recordings", handlers: { "recording.ready": applyLive } },
  {
    stream: "MEETINGS",
    consumer: "projection.meetings",
    // The composed cloud video of a transcript's meeting (has_cloud_video in the detail view).
    handlers: {
      "meeting.created": applyLive,
      "meeting.updated": applyLive,
      "meeting.deactivated": applyLive,
      "meeting.deleted": applyLive,
    },
  },
  {
    stream: "TRANSCRIPTS",
    consumer: "projection.transcripts",
    handlers: {
      "transcript.created": applyLive,
      "transcript.updated": applyLive,
      "transcript.topic.upserted": applyLive,
      "transcript.topics.cleared": applyLive,
      "transcript.completed": applyLive,
      "transcript.destroyed": applyLive,
    },
  },
];

/**
 * Read models start from the beginning of each stream, and one replica at a time applies each
 * (exclusive): a transcript's version in the read model means every event up to it was applied,
 * which holds only while its stream is applied in order (two replicas sharing the stream applied a
 * topic before its transcript, and the version said "reached" with a topic missing). The other
 * replicas serve reads and stand by. Batches of 500 (the kit's default is 100):
 * a batch's commit and pull round are spread over more events (`pnpm bench projection`, with one
 * statement per event: 0.23x → 0.33x of the consumer machinery alone). Since a run of a batch is
 * one statement, larger batches measured the same (1,000 and 2,000: within the noise of 500).
 */
export function registerConsumers<C>(rt: ServiceRuntime<C>): { stream: StreamName; runner: ConsumerRunner }[] {
  return FOLDED.map(({ stream, consumer, handlers }) => ({
    stream,
    runner: rt.consume({
      name: consumer,
      stream,
      handlers,
      batchHandler: applyLiveBatch,
      prepareBatch: planInOrder,
      batchSize: 500,
      deliverPolicy: "all",
      exclusive: true,
    }),
  }));
}
