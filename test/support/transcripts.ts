// Test stand-in for the transcription service (another branch): keeps transcript states and their
// versions and publishes the TRANSCRIPTS events it would emit, straight onto the test's bus prefix.
import { randomUUID } from "node:crypto";
import {
  makeEvent,
  type EventInput,
  type EventType,
  type PipelineEventName,
  type TopicRecord,
  type TranscriptState,
  type Word,
} from "@scribe/contracts";
import { ANONYMOUS, projectionOps, transcriptUpdated } from "@scribe/contracts";
import { connectBus, rpcCall, type Bus } from "@scribe/kit";
import { sampleRoomState, sampleTranscriptState } from "@scribe/contracts/testing";
import { TEST_NATS_URL } from "@scribe/kit/testing";

/** Kept under the names the tests know them by. */
export const newTranscript = sampleTranscriptState;
export const roomState = sampleRoomState;

export const word = (text: string, start: number, end: number, speaker = 0): Word => ({ text, start, end, speaker });

export function topicRecord(words: Word[], extra: Partial<TopicRecord> = {}): TopicRecord {
  return {
    id: randomUUID(),
    title: "Topic",
    summary: "Summary",
    timestamp: words[0]?.start ?? 0,
    duration: null,
    transcript: null,
    words,
    ...extra,
  };
}

const SPOKEN = "so the plan for next quarter is that we ship the payment work first and then look at the mobile release again".split(" ");

/** A meeting's words as people speak (160 a minute, the speaker changing every 12 words), one list per minute. */
export function meetingWords(minutes: number, wordsPerMinute = 160): Word[][] {
  return Array.from({ length: minutes }, (_, minute) =>
    Array.from({ length: wordsPerMinute }, (_, i) => {
      const start = minute * 60 + (i * 60) / wordsPerMinute;
      const n = minute * wordsPerMinute + i;
      return { text: ` ${SPOKEN[n % SPOKEN.length]}`, start, end: start + 0.3, speaker: Math.floor(n / 12) % 3 };
    }),
  );
}

/** A WebVTT document with one cue per given caption (what the transcription service stores). */
export function vtt(...captions: string[]): string {
  return `WEBVTT\n${captions.map((c, i) => `\n00:00:${String(i * 2).padStart(2, "0")}.000 --> 00:00:${String(i * 2 + 2).padStart(2, "0")}.000\n<v Speaker0>${c}\n`).join("")}`;
}

export class TranscriptWriter {
  private readonly states = new Map<string, TranscriptState>();
  private constructor(readonly bus: Bus) {}

  static async connect(prefix: string): Promise<TranscriptWriter> {
    return new TranscriptWriter(await connectBus({ url: TEST_NATS_URL, prefix, name: "test-transcripts" }));
  }

  /** `id` fixes the event id; `msgId` overrides JetStream's de-duplication id (a redelivery past its window). */
  async publish<T extends EventType>(type: T, data: EventInput<T>, opts: { id?: string; msgId?: string } = {}): Promise<string> {
    const { event, subject } = makeEvent(type, data, {
      source: "test/transcription",
      time: new Date(),
      ...(opts.id ? { id: opts.id } : {}),
    });
    await this.bus.js.publish(this.bus.subject(subject), JSON.stringify(event), { msgID: opts.msgId ?? event.id });
    return event.id;
  }

  state(id: string): TranscriptState {
    const s = this.states.get(id);
    if (!s) throw new Error(`unknown transcript ${id}`);
    return s;
  }

  private next(id: string): number {
    return this.state(id).version + 1;
  }

  async create(overrides: Partial<TranscriptState> = {}): Promise<TranscriptState> {
    const s = newTranscript(overrides);
    this.states.set(s.id, s);
    await this.publish("transcript.created", s);
    return s;
  }

  async update(id: string, patch: Partial<TranscriptState>, opts: { eventId?: string } = {}): Promise<TranscriptState> {
    const s = { ...this.state(id), ...patch, version: this.next(id), updated_at: new Date().toISOString() };
    this.states.set(id, s);
    // With its WebVTT compressed, as the transcription service announces a new one (v3).
    await this.publish("transcript.updated", transcriptUpdated(s, true), opts.eventId ? { id: opts.eventId } : {});
    return s;
  }

  async upsertTopic(id: string, position: number, topic: TopicRecord): Promise<number> {
    const version = this.next(id);
    this.states.set(id, { ...this.state(id), version });
    await this.publish("transcript.topic.upserted", { transcript_id: id, version, position, topic });
    return version;
  }

  /** Appends an entry to the transcript's realtime event log, as a pipeline run (`runId`) does as it goes. */
  async appendEvent(id: string, event: PipelineEventName, data: Record<string, unknown>, runId: string | null = null): Promise<void> {
    await this.publish("transcript.event.appended", { transcript_id: id, user_id: this.state(id).user_id, run_id: runId, event, data });
  }

  /**
   * The event log a file pipeline run leaves on a transcript it finished (services/transcription's
   * file workflow, in its order), from the transcript's current state, its `topics` and `waveform`:
   * what its socket replays on connect, as in production.
   */
  async logFinishedRun(id: string, topics: TopicRecord[], waveform: number[]): Promise<void> {
    const s = this.state(id);
    const run = randomUUID();
    const log = (event: PipelineEventName, data: Record<string, unknown>) => this.appendEvent(id, event, data, run);
    await log("STATUS", { value: "processing" });
    await log("DURATION", { duration: s.duration });
    await log("WAVEFORM", { waveform });
    const text = topics.flatMap((t) => t.words.map((w) => w.text)).join("");
    await log("TRANSCRIPT", { text, translation: null });
    for (const topic of topics) await log("TOPIC", { ...topic });
    if (s.title) await log("FINAL_TITLE", { title: s.title });
    if (s.short_summary) await log("FINAL_SHORT_SUMMARY", { short_summary: s.short_summary });
    if (s.action_items) await log("ACTION_ITEMS", { action_items: s.action_items });
    if (s.long_summary) await log("FINAL_LONG_SUMMARY", { long_summary: s.long_summary });
    await log("STATUS", { value: s.status });
  }

  async clearTopics(id: string): Promise<number> {
    const version = this.next(id);
    this.states.set(id, { ...this.state(id), version });
    await this.publish("transcript.topics.cleared", { transcript_id: id, version });
    return version;
  }

  async destroy(id: string): Promise<TranscriptState> {
    const s = { ...this.state(id), version: this.next(id) };
    this.states.set(id, s);
    await this.publish("transcript.destroyed", { transcript: s });
    return s;
  }

  /** Wait until the read model holds the transcript's current version (read-your-writes). */
  async applied(id: string, timeoutMs = 10_000): Promise<void> {
    const version = this.state(id).version;
    const r = await rpcCall(
      this.bus,
      projectionOps.awaitVersion,
      { caller: ANONYMOUS, id, version, timeout_ms: timeoutMs },
      { timeoutMs: timeoutMs + 2000 },
    );
    if (!r.reached) throw new Error(`read model holds version ${r.version} of ${id}, expected ${version}`);
  }

  async close(): Promise<void> {
    await this.bus.close();
  }
}
