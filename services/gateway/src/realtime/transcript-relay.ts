// One transcript socket's feed (§2.3 steps 3–4): an ordered JetStream consumer over the transcript's
// event-log subject from the stream's start that keeps going, so the stored entries and the live
// ones come from one sequence with no gap and no duplicate between them. The stream's last sequence
// when the socket was accepted is where stored ends and live begins.
import { DeliverPolicy, type Consumer, type ConsumerMessages } from "@nats-io/jetstream";
import { eventDef, eventSubject, parseEvent, type TranscriptEventAppended } from "@scribe/contracts";
import type { Bus, Logger } from "@scribe/kit";
import { StoredLog, type WsMessage } from "./protocol";

export interface TranscriptRelayOptions {
  bus: Bus;
  log: Logger;
  transcriptId: string;
  /** The TRANSCRIPTS stream's last sequence when the socket was accepted: entries up to it are stored ones. */
  connectedAtSeq: number;
  send(message: WsMessage): void;
}

/**
 * How long the server keeps a feed's consumer once nobody pulls from it: the relay deletes its
 * consumer when the socket closes, this only cleans up after a gateway that died.
 */
const INACTIVE_THRESHOLD_MS = 60_000;

export class TranscriptRelay {
  private consumer: Consumer | null = null;
  private messages: ConsumerMessages | null = null;
  private stopped = false;

  constructor(private readonly opts: TranscriptRelayOptions) {}

  /** Reads until `stop()`; rejects when the consumer cannot be created. */
  async run(): Promise<void> {
    const { bus, transcriptId, connectedAtSeq, send } = this.opts;
    const consumer = await bus.js.consumers.get(bus.stream("TRANSCRIPTS"), {
      filter_subjects: bus.subject(eventSubject(eventDef("transcript.event.appended"), transcriptId)),
      deliver_policy: DeliverPolicy.All,
      inactive_threshold: INACTIVE_THRESHOLD_MS,
    });
    this.consumer = consumer;
    // The socket may have closed while the consumer was being created.
    if (this.stopped) return this.release();
    const messages = await consumer.consume({ max_messages: 256 });
    this.messages = messages;
    if (this.stopped) return this.release();
    // Stored entries are collected until the last of them (a reset may still come), then sent at
    // once; everything after `connectedAtSeq` is live and goes out as it comes.
    const stored = new StoredLog();
    let replaying = true;
    for await (const m of messages) {
      const entry = this.entryOf(m.data, m.seq);
      if (replaying) {
        if (m.seq <= connectedAtSeq) {
          if (entry) stored.add(entry);
          // More stored entries of this transcript follow (pending counts only the filter's).
          if (m.info.pending > 0) continue;
        }
        replaying = false;
        for (const message of stored.take()) send(message);
        if (m.seq <= connectedAtSeq) continue;
      }
      if (entry) send({ event: entry.event, data: entry.data });
    }
  }

  /** The event-log entry a message carries, or null (unreadable, or another transcript's). */
  private entryOf(raw: Uint8Array, seq: number): TranscriptEventAppended | null {
    const { log, transcriptId } = this.opts;
    let e;
    try {
      e = parseEvent(raw);
    } catch (err) {
      log.warn({ err, seq, transcriptId }, "skipping an unreadable transcript event");
      return null;
    }
    // Subject tokens replace characters such as '.', so the id itself is what identifies the transcript.
    if (e.type !== "transcript.event.appended" || e.data.transcript_id !== transcriptId) return null;
    return e.data;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.release();
  }

  /** Stops reading and deletes the server-side consumer rather than leaving it to expire. */
  private release(): void {
    this.messages?.stop();
    this.consumer?.delete().catch((err: unknown) => this.opts.log.debug({ err }, "feed consumer already gone"));
    this.consumer = null;
  }
}
