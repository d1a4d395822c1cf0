// Transcript sockets' feeds (§2.3 steps 3–4, issue 15.9): ONE ordered JetStream consumer per
// transcript per gateway carries the live events to every socket of that transcript; a socket that
// joins reads the stored log once on its own, up to its boundary, then takes the shared live part.
//
// No gap, no duplicate: the shared consumer delivers in stream order, and a socket joins it
// synchronously with the boundary max(its connectedAtSeq, the last sequence the feed delivered), so
// every entry after the boundary reaches the socket from the feed and every entry up to it from its
// replay. Entries up to connectedAtSeq are stored ones (replayed through StoredLog); those between
// connectedAtSeq and the boundary were published after the socket connected, so they go out as live.
import { DeliverPolicy, type Consumer, type ConsumerMessages } from "@nats-io/jetstream";
import { eventDef, eventSubject, parseEvent, type TranscriptEventAppended } from "@scribe/contracts";
import type { Bus, Logger } from "@scribe/kit";
import { StoredLog, type WsMessage } from "./protocol";
import type { ReadModelGate } from "./read-model-gate";

/**
 * How long the server keeps a consumer once nobody pulls from it: feeds and replays delete their
 * consumer when done, this only cleans up after a gateway that died.
 */
const INACTIVE_THRESHOLD_MS = 60_000;

interface Entry {
  seq: number;
  entry: TranscriptEventAppended;
}

/** One socket of a feed. */
export interface FeedListener {
  send(message: WsMessage): void;
  /** The feed cannot go on (its consumer failed). */
  fail(err: unknown): void;
}

class Member {
  /** Live entries that arrived while the replay ran; null once the socket is live. */
  private pending: Entry[] | null = [];
  /**
   * The highest stream sequence handed to this member. An ordered consumer that recreates itself
   * (missed heartbeats on a loaded server) may hand an entry again; it must not reach the socket twice.
   */
  private lastSeq: number;

  constructor(
    readonly listener: FeedListener,
    readonly boundary: number,
  ) {
    this.lastSeq = boundary;
  }

  deliver(e: Entry): void {
    if (e.seq <= this.lastSeq) return;
    this.lastSeq = e.seq;
    if (this.pending) this.pending.push(e);
    else this.listener.send({ event: e.entry.event, data: e.entry.data });
  }

  /** The replay is read: stored first, then what came live meanwhile, then live as it comes. */
  goLive(stored: WsMessage[], liveDuringReplay: WsMessage[]): void {
    for (const m of stored) this.listener.send(m);
    for (const m of liveDuringReplay) this.listener.send(m);
    const pending = this.pending ?? [];
    this.pending = null;
    for (const e of pending) this.listener.send({ event: e.entry.event, data: e.entry.data });
  }
}

/** Reads one transcript's event-log entries from an ordered consumer until stopped. */
class EntryReader {
  private consumer: Consumer | null = null;
  private messages: ConsumerMessages | null = null;
  private stopped = false;

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
    private readonly transcriptId: string,
  ) {}

  /** Calls `onEntry` for each entry from `startSeq` (0: the stream's start); `onEntry` returning false stops. */
  async read(startSeq: number, onEntry: (e: Entry | null, seq: number, pending: number) => boolean): Promise<void> {
    const { bus, transcriptId } = this;
    const consumer = await bus.js.consumers.get(bus.stream("TRANSCRIPTS"), {
      filter_subjects: subjectOf(bus, transcriptId),
      ...(startSeq > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startSeq } : { deliver_policy: DeliverPolicy.All }),
      inactive_threshold: INACTIVE_THRESHOLD_MS,
    });
    this.consumer = consumer;
    if (this.stopped) return this.release();
    const messages = await consumer.consume({ max_messages: 256 });
    this.messages = messages;
    if (this.stopped) return this.release();
    for await (const m of messages) {
      if (!onEntry(this.entryOf(m.data, m.seq), m.seq, m.info.pending)) break;
    }
    this.release();
  }

  /** The event-log entry a message carries, or null (unreadable, or another transcript's). */
  private entryOf(raw: Uint8Array, seq: number): Entry | null {
    let e;
    try {
      e = parseEvent(raw);
    } catch (err) {
      this.log.warn({ err, seq, transcriptId: this.transcriptId }, "skipping an unreadable transcript event");
      return null;
    }
    // Subject tokens replace characters such as '.', so the id itself is what identifies the transcript.
    if (e.type !== "transcript.event.appended" || e.data.transcript_id !== this.transcriptId) return null;
    return { seq, entry: e.data };
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.release();
  }

  /** Stops reading and deletes the server-side consumer rather than leaving it to expire. */
  private release(): void {
    this.messages?.stop();
    this.consumer?.delete().catch((err: unknown) => this.log.debug({ err }, "feed consumer already gone"));
    this.consumer = null;
    this.messages = null;
  }
}

const subjectOf = (bus: Bus, transcriptId: string) => bus.subject(eventSubject(eventDef("transcript.event.appended"), transcriptId));

/** The shared live part of one transcript's sockets. */
class Feed {
  private readonly members = new Set<Member>();
  private readonly reader: EntryReader;
  /** The last stream sequence the feed has handed to its members. */
  lastSeq: number;

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
    private readonly transcriptId: string,
    startAfter: number,
    private readonly gate: ReadModelGate,
    private readonly onEmpty: () => void,
  ) {
    this.lastSeq = startAfter;
    this.reader = new EntryReader(bus, log, transcriptId);
    this.reader
      .read(startAfter + 1, (e, seq) => {
        // Handed on (and counted as delivered) once the read model holds the entry's version: a
        // socket joining meanwhile replays it, and its replay waits for the same.
        this.gate.pass(transcriptId, e?.entry.version, () => {
          this.lastSeq = Math.max(this.lastSeq, seq);
          if (e) for (const m of this.members) m.deliver(e);
        });
        return true;
      })
      .catch((err: unknown) => {
        for (const m of [...this.members]) m.listener.fail(err);
      });
  }

  get size(): number {
    return this.members.size;
  }

  /** Adds a socket accepted when the stream's last sequence was `connectedAtSeq`; returns its removal. */
  join(listener: FeedListener, connectedAtSeq: number): () => void {
    // Synchronous with the read of lastSeq: nothing the feed delivers from here on is missed.
    const member = new Member(listener, Math.max(connectedAtSeq, this.lastSeq));
    this.members.add(member);
    const replay = new EntryReader(this.bus, this.log, this.transcriptId);
    this.replay(replay, member, connectedAtSeq).catch((err: unknown) => listener.fail(err));
    return () => {
      replay.stop();
      if (!this.members.delete(member)) return;
      if (this.members.size === 0) {
        this.reader.stop();
        this.onEmpty();
      }
    };
  }

  /** Reads the stored log once, up to the member's boundary. */
  private async replay(reader: EntryReader, member: Member, connectedAtSeq: number): Promise<void> {
    const stored = new StoredLog();
    const liveDuringReplay: WsMessage[] = [];
    let version = 0;
    // An ordered consumer over an empty subject would wait forever for its first message.
    const last = await this.bus.jsm.streams.getMessage(this.bus.stream("TRANSCRIPTS"), {
      last_by_subj: subjectOf(this.bus, this.transcriptId),
    });
    if (last && member.boundary > 0) {
      let readUpTo = 0;
      await reader.read(0, (e, seq, pending) => {
        if (seq > member.boundary) return false;
        // Handed again by a recreated ordered consumer (see Member.lastSeq).
        if (seq <= readUpTo) return true;
        readUpTo = seq;
        version = Math.max(version, e?.entry.version ?? 0);
        if (e && seq <= connectedAtSeq) stored.add(e.entry);
        else if (e) liveDuringReplay.push({ event: e.entry.event, data: e.entry.data });
        // pending counts only this transcript's subject: 0 means its log is read.
        return seq < member.boundary && pending > 0;
      });
    }
    await this.gate.reach(this.transcriptId, version || undefined);
    member.goLive(stored.take(), liveDuringReplay);
  }
}

/** The gateway's transcript feeds, one per transcript with open sockets. */
export class TranscriptFeeds {
  private readonly feeds = new Map<string, Feed>();

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
    private readonly gate: ReadModelGate,
  ) {}

  /** Adds a socket of `transcriptId` (accepted when the stream's last sequence was `connectedAtSeq`); returns its removal. */
  join(transcriptId: string, connectedAtSeq: number, listener: FeedListener): () => void {
    let feed = this.feeds.get(transcriptId);
    if (!feed) {
      const created: Feed = new Feed(this.bus, this.log.child({ transcriptId }), transcriptId, connectedAtSeq, this.gate, () => {
        if (this.feeds.get(transcriptId) === created) this.feeds.delete(transcriptId);
      });
      this.feeds.set(transcriptId, (feed = created));
    }
    return feed.join(listener, connectedAtSeq);
  }

  /** Transcripts with a feed (open sockets). */
  has(transcriptId: string): boolean {
    return this.feeds.has(transcriptId);
  }
}
