// Destroying a transcript removes its content from the bus too (issue 15.13): once
// `transcript.destroyed` (which carries no content) is on the TRANSCRIPTS stream, every earlier
// message of that transcript's subjects is purged — words, topics, titles, summaries — so a replay
// or a new consumer finds only the tombstone; dead letters of the transcript go as well.
// Purging is idempotent, so running it again for a redelivered event does no harm; that is why it
// may run in the handler rather than through a job table.
import { DLQ_STREAM, STREAMS, eventToken, subjectToken } from "@scribe/contracts";
import type { Bus, ServiceRuntime } from "@scribe/kit";

/** Purge the transcript's messages older than `tombstoneSeq` and its dead letters; what was removed. */
export async function shredTranscriptEvents(
  bus: Bus,
  transcriptId: string,
  tombstoneSeq: number,
): Promise<{ purged: number; deadLetters: number }> {
  const id = subjectToken(transcriptId);
  const filter = bus.subject(`${STREAMS.TRANSCRIPTS.context}.*.${id}`);
  const { purged } = await bus.jsm.streams.purge(bus.stream("TRANSCRIPTS"), { filter, seq: tombstoneSeq });
  return { purged, deadLetters: await deleteDeadLetters(bus, id) };
}

/** Dead letters keep the original subject in a header: those of the transcript are deleted. */
async function deleteDeadLetters(bus: Bus, id: string): Promise<number> {
  const stream = bus.stream(DLQ_STREAM.name);
  const info = await bus.jsm.streams.info(stream).catch(() => null);
  if (!info || info.state.messages === 0) return 0;
  const suffix = `.${id}`;
  let deleted = 0;
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const m = await bus.jsm.streams.getMessage(stream, { seq }).catch(() => null);
    const subject = m?.header?.get("Scribe-Dlq-Subject") ?? "";
    if (m && subject.endsWith(suffix) && subject.includes(`${STREAMS.TRANSCRIPTS.context}.`)) {
      await bus.jsm.streams.deleteMessage(stream, seq, true);
      deleted++;
    }
  }
  return deleted;
}

export function registerShredder(rt: Pick<ServiceRuntime<unknown>, "consume" | "bus">): void {
  rt.consume({
    name: "transcription.shred",
    stream: "TRANSCRIPTS",
    filterSubject: `${STREAMS.TRANSCRIPTS.context}.${eventToken("transcript.destroyed")}.*`,
    // The whole history: transcripts destroyed before this existed are shredded too.
    deliverPolicy: "all",
    handlers: {
      "transcript.destroyed": async (_tx, ev, { log, streamSeq }) => {
        const removed = await shredTranscriptEvents(rt.bus, ev.data.transcript.id, streamSeq);
        log.info({ transcriptId: ev.data.transcript.id, ...removed }, "destroyed transcript's events purged");
      },
    },
  });
}
