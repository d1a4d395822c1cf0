// The meetings service's consumers: its copy of the rooms (./room-copy.ts: a deleted room takes
// its meetings with it, each announced by meeting.deleted), and retention.
import { STREAMS, eventToken, makeEvent, roomCopySource, type TranscriptExpired } from "@scribe/contracts";
import { copyHandlers, emit, type Tx } from "@scribe/kit";
import type { ServiceRuntime } from "@scribe/kit";
import { SOURCE, changed } from "./changes";
import { roomCopy } from "./room-copy";
import { deleteMeetings, meetingById } from "./store";

/**
 * Retention (PUBLIC_MODE): an expired anonymous transcript takes its meeting with it; consent,
 * participant and join records go by cascade. Announced as meeting.deleted like a room deletion.
 */
export async function transcriptExpired(tx: Tx, expired: TranscriptExpired, time: Date): Promise<void> {
  if (!expired.meeting_id) return;
  const meeting = await meetingById(tx, expired.meeting_id, { forUpdate: true });
  if (!meeting) return;
  await emit(tx, makeEvent("meeting.deleted", changed(meeting, {}, time), { source: SOURCE, time }));
  await deleteMeetings(tx, [meeting.id]);
}

export function registerConsumers(rt: Pick<ServiceRuntime<unknown>, "consume" | "clock">): void {
  rt.consume({
    name: "meetings.rooms",
    stream: "ROOMS",
    // A read model: built from the whole history.
    deliverPolicy: "all",
    handlers: copyHandlers(roomCopy, rt.clock, roomCopySource.events),
  });

  rt.consume({
    name: "meetings.retention",
    stream: "TRANSCRIPTS",
    filterSubject: `${STREAMS.TRANSCRIPTS.context}.${eventToken("retention.transcript_expired")}.*`,
    // An instruction to apply, not news: one published before this consumer existed still applies.
    deliverPolicy: "all",
    handlers: {
      "retention.transcript_expired": async (tx, ev) => transcriptExpired(tx, ev.data, rt.clock()),
    },
  });
}
