// A test double of the pipelines' boundary (TranscriptPort): the transcript held in memory, every
// call recorded, the same stale-run rule as the real port (only the current run may write).
import type { PipelineEventName, TopicRecord, TranscriptState } from "@scribe/contracts";
import { newAggregate } from "../../../src/domain/transcript";
import type { PipelinePatch, TranscriptPort } from "../../../src/pipelines/port";

export interface PortCall {
  method: keyof TranscriptPort;
  transcriptId: string;
  runId: string | null;
  args: unknown[];
  /** What the call returned (false: stale run, ignored). */
  applied: boolean;
}

export function blankTranscript(id: string, over: Partial<TranscriptState> = {}): TranscriptState {
  // A new transcript as the write side makes one (status idle, audio local), then the test's changes.
  return { ...newAggregate({ id, now: new Date(), user_id: null, name: "", source_kind: "room" }).state, ...over };
}

export class MemoryPort implements TranscriptPort {
  readonly calls: PortCall[] = [];
  readonly transcripts = new Map<string, TranscriptState>();
  readonly topics = new Map<string, TopicRecord[]>();
  readonly events = new Map<string, { event: PipelineEventName; data: Record<string, unknown> }[]>();
  /** The run each transcript currently belongs to (set by the test after startPipeline). */
  readonly currentRun = new Map<string, string>();

  add(state: TranscriptState): void {
    this.transcripts.set(state.id, state);
    this.topics.set(state.id, []);
    this.events.set(state.id, []);
  }

  private write(
    method: keyof TranscriptPort,
    id: string,
    runId: string,
    args: unknown[],
    fn: (t: TranscriptState) => TranscriptState | void,
  ): boolean {
    const t = this.transcripts.get(id);
    const applied = !!t && this.currentRun.get(id) === runId;
    this.calls.push({ method, transcriptId: id, runId, args, applied });
    if (!applied) return false;
    // Values go through JSON as they would through the database (no undefined, no NaN survives silently).
    const next = fn(structuredClone(t));
    if (next) this.transcripts.set(id, { ...next, version: t.version + 1 });
    return true;
  }

  async load(id: string): Promise<TranscriptState | null> {
    this.calls.push({ method: "load", transcriptId: id, runId: null, args: [], applied: true });
    const t = this.transcripts.get(id);
    return t ? structuredClone(t) : null;
  }

  async markProcessing(id: string, runId: string): Promise<boolean> {
    return this.write("markProcessing", id, runId, [], (t) => {
      if (t.status !== "processing") this.events.get(id)!.push({ event: "STATUS", data: { value: "processing" } });
      return { ...t, status: "processing", error: null };
    });
  }

  async update(id: string, runId: string, patch: PipelinePatch): Promise<boolean> {
    assertJson(patch);
    return this.write("update", id, runId, [patch], (t) => ({ ...t, ...patch }));
  }

  async replaceTopics(id: string, runId: string, topics: TopicRecord[]): Promise<boolean> {
    assertJson(topics);
    return this.write("replaceTopics", id, runId, [topics], () => {
      const words = topics.flatMap((x) => x.words);
      for (let i = 1; i < words.length; i++) {
        if (words[i]!.start < words[i - 1]!.start) throw new Error(`topic words are not in time order at ${i}`);
      }
      this.topics.set(id, structuredClone(topics));
    });
  }

  async appendEvent(id: string, runId: string, event: PipelineEventName, data: Record<string, unknown>): Promise<boolean> {
    assertJson(data);
    return this.write(
      "appendEvent",
      id,
      runId,
      [event, data],
      () => void this.events.get(id)!.push({ event, data: structuredClone(data) }),
    );
  }

  async complete(id: string, runId: string): Promise<boolean> {
    return this.write("complete", id, runId, [], (t) => {
      this.events.get(id)!.push({ event: "STATUS", data: { value: "ended" } });
      return { ...t, status: "ended" };
    });
  }

  async fail(id: string, runId: string, reason: string): Promise<boolean> {
    return this.write("fail", id, runId, [reason], (t) => {
      if (t.status === "ended") return;
      this.events.get(id)!.push({ event: "STATUS", data: { value: "error" } });
      return { ...t, status: "error", error: reason };
    });
  }

  callsOf(method: keyof TranscriptPort, transcriptId?: string): PortCall[] {
    return this.calls.filter((c) => c.method === method && (transcriptId === undefined || c.transcriptId === transcriptId));
  }

  eventsOf(id: string, name: PipelineEventName): Record<string, unknown>[] {
    return (this.events.get(id) ?? []).filter((e) => e.event === name).map((e) => e.data);
  }
}

/** The real port stores JSON: refuse what JSON would mangle (NaN, Infinity, undefined in arrays). */
function assertJson(v: unknown, path = "$"): void {
  if (typeof v === "number" && !Number.isFinite(v)) throw new Error(`not JSON-safe at ${path}: ${v}`);
  if (Array.isArray(v)) v.forEach((x, i) => assertJson(x, `${path}[${i}]`));
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) assertJson(x, `${path}.${k}`);
}
