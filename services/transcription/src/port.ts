// The pipelines' way to write the transcript (pipelines/port.ts): one transaction per call, the row
// locked, the stale-run guard first (a run that is not the transcript's current run changes nothing
// and gets false), then the change through `persist`, which emits nothing when nothing changed.
import { makeEvent, type PipelineEventName, type TopicRecord, type TranscriptState } from "@scribe/contracts";
import { emit, type Logger, type Sql, type Tx } from "@scribe/kit";
import { SOURCE, appended, canonical, completedTopics, persist } from "./changes";
import { failed, markedProcessing, type Aggregate } from "./domain/transcript";
import type { PipelinePatch, TranscriptPort } from "./pipelines/port";
import { loadTranscript } from "./store";

export class DbTranscriptPort implements TranscriptPort {
  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
  ) {}

  /** Runs `work` on the locked aggregate when `runId` is its current run; false otherwise. */
  private async asRun(transcriptId: string, runId: string, what: string, work: (tx: Tx, a: Aggregate) => Promise<boolean | void>): Promise<boolean> {
    return this.sql.begin(async (tx) => {
      const a = await loadTranscript(tx, transcriptId, { forUpdate: true });
      if (!a) {
        this.log.warn({ transcriptId, runId, what }, "pipeline call for a transcript that no longer exists");
        return false;
      }
      if (a.current_run_id !== runId) {
        this.log.info({ transcriptId, runId, currentRunId: a.current_run_id, what }, "stale run: call ignored");
        return false;
      }
      return (await work(tx, a)) ?? true;
    });
  }

  async load(transcriptId: string): Promise<TranscriptState | null> {
    return (await loadTranscript(this.sql, transcriptId))?.state ?? null;
  }

  /** A status change is logged as STATUS for the transcript's sockets (and the owner's). */
  private async setStatus(tx: Tx, a: Aggregate, runId: string, state: TranscriptState, extra: Partial<Aggregate> = {}) {
    const next = { ...a, ...extra, state };
    const statusChanged = state.status !== a.state.status;
    const status = { event: "STATUS" as const, data: { value: state.status } };
    if (statusChanged) next.events = [...next.events, status];
    const { aggregate } = await persist(tx, a, next);
    if (statusChanged) await emit(tx, appended(aggregate.state, runId, status.event, status.data));
    return aggregate;
  }

  markProcessing(transcriptId: string, runId: string): Promise<boolean> {
    return this.asRun(transcriptId, runId, "markProcessing", async (tx, a) => {
      await this.setStatus(tx, a, runId, markedProcessing(a.state));
    });
  }

  update(transcriptId: string, runId: string, patch: PipelinePatch): Promise<boolean> {
    return this.asRun(transcriptId, runId, "update", async (tx, a) => {
      const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      await persist(tx, a, { ...a, state: { ...a.state, ...defined } });
    });
  }

  replaceTopics(transcriptId: string, runId: string, topics: TopicRecord[]): Promise<boolean> {
    return this.asRun(transcriptId, runId, "replaceTopics", async (tx, a) => {
      await persist(tx, a, { ...a, topics });
    });
  }

  appendEvent(transcriptId: string, runId: string, event: PipelineEventName, data: Record<string, unknown>): Promise<boolean> {
    return this.asRun(transcriptId, runId, "appendEvent", async (tx, a) => {
      const entry = { event, data };
      // A step that runs again appends the same entry again: it was already announced.
      if (a.events.some((e) => canonical(e) === canonical(entry))) return;
      await persist(tx, a, { ...a, events: [...a.events, entry] });
      await emit(tx, appended(a.state, runId, event, data));
    });
  }

  complete(transcriptId: string, runId: string): Promise<boolean> {
    return this.asRun(transcriptId, runId, "complete", async (tx, a) => {
      if (a.completed_run_id === runId) return;
      const state: TranscriptState = { ...a.state, status: "ended", error: null };
      const at = new Date();
      const statusChanged = state.status !== a.state.status;
      const status = { event: "STATUS" as const, data: { value: state.status } };
      const { aggregate } = await persist(
        tx,
        a,
        { ...a, state, completed_run_id: runId, events: statusChanged ? [...a.events, status] : a.events },
        {
          now: at,
          forceStateEvent: true,
          stateEvent: (s) =>
            makeEvent("transcript.completed", { transcript: s, topics: completedTopics(a.topics), run_id: runId, completed_at: at.toISOString() }, { source: SOURCE }),
        },
      );
      if (statusChanged) await emit(tx, appended(aggregate.state, runId, status.event, status.data));
      this.log.info({ transcriptId, runId, version: aggregate.state.version }, "transcript completed");
    });
  }

  fail(transcriptId: string, runId: string, reason: string): Promise<boolean> {
    return this.asRun(transcriptId, runId, "fail", async (tx, a) => {
      const state = failed(a.state, reason);
      if (!state) {
        this.log.info({ transcriptId, runId, reason }, "failure after completion: status stays ended");
        return false;
      }
      await this.setStatus(tx, a, runId, state);
      this.log.warn({ transcriptId, runId, reason }, "transcript processing failed");
    });
  }
}
