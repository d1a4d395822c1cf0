// The pipelines' way to write the transcript (pipelines/port.ts): one transaction per call in two
// round trips (readThenWrite), the row locked (with only the parts the call reads: the WebVTT only
// for the completion, which carries it), the decider decides, `execute` writes. A call of a run
// that is not the transcript's current run changes nothing and gets false (the decider refuses it as
// stale), so does a failure reported after the transcript ended; an unchanged value decides nothing.
import type { PipelineEventName, TopicRecord, TranscriptState } from "@scribe/contracts";
import { readThenWrite, systemClock, type Clock, type Logger, type Sql } from "@scribe/kit";
import { execute } from "./changes";
import { loads, type TranscriptCommand } from "./domain/decider";
import { RuleError } from "./domain/transcript";
import type { PipelinePatch, TranscriptPort } from "./pipelines/port";
import { loadTranscript } from "./store";

export class DbTranscriptPort implements TranscriptPort {
  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
    private readonly now: Clock = systemClock,
  ) {}

  private async run(transcriptId: string, command: TranscriptCommand & { run_id: string }): Promise<boolean> {
    const ctx = { transcriptId, runId: command.run_id, what: command.type };
    let currentRunId: string | null = null;
    try {
      // Two round trips: the row locked with BEGIN, the changes with COMMIT.
      const outcome = await readThenWrite(
        this.sql,
        (tx) => loadTranscript(tx, transcriptId, { forUpdate: true, webvtt: false, ...loads(command) }),
        (tx, a) => {
          currentRunId = a?.current_run_id ?? null;
          return a ? execute(tx, a, command, this.now()) : Promise.resolve(null);
        },
      );
      if (!outcome) {
        this.log.warn(ctx, "pipeline call for a transcript that no longer exists");
        return false;
      }
      const { aggregate, events } = outcome;
      if (command.type === "complete" && events.length)
        this.log.info({ ...ctx, version: aggregate!.state.version }, "transcript completed");
      if (command.type === "fail" && events.length) this.log.warn({ ...ctx, reason: command.reason }, "transcript processing failed");
      return true;
    } catch (e) {
      if (!(e instanceof RuleError)) throw e;
      if (e.late === "stale_run") this.log.info({ ...ctx, currentRunId }, "stale run: call ignored");
      else if (e.late === "ended")
        this.log.info(
          { ...ctx, reason: command.type === "fail" ? command.reason : undefined },
          "failure after completion: status stays ended",
        );
      else throw e;
      return false;
    }
  }

  async load(transcriptId: string): Promise<TranscriptState | null> {
    return (await loadTranscript(this.sql, transcriptId, { topics: false, events: false }))?.state ?? null;
  }

  markProcessing(transcriptId: string, runId: string): Promise<boolean> {
    return this.run(transcriptId, { type: "markProcessing", run_id: runId, now: this.now() });
  }

  update(transcriptId: string, runId: string, patch: PipelinePatch): Promise<boolean> {
    return this.run(transcriptId, { type: "updateFromRun", run_id: runId, patch, now: this.now() });
  }

  replaceTopics(transcriptId: string, runId: string, topics: TopicRecord[]): Promise<boolean> {
    return this.run(transcriptId, { type: "replaceTopics", run_id: runId, topics, now: this.now() });
  }

  appendEvent(transcriptId: string, runId: string, event: PipelineEventName, data: Record<string, unknown>): Promise<boolean> {
    return this.run(transcriptId, { type: "appendEvent", run_id: runId, event, data });
  }

  complete(transcriptId: string, runId: string): Promise<boolean> {
    return this.run(transcriptId, { type: "complete", run_id: runId, now: this.now() });
  }

  fail(transcriptId: string, runId: string, reason: string): Promise<boolean> {
    return this.run(transcriptId, { type: "fail", run_id: runId, reason, now: this.now() });
  }
}
