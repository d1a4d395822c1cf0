// The pipelines' way to write the transcript (pipelines/port.ts). A call decides on the row as this
// port last left it, or as read without a lock (only the parts the call reads: the WebVTT only for
// the completion, which carries it), and commits in one statement that applies only if nobody wrote
// the row since (changes.ts persistIfUnchanged: atomic, the row's version checked under its lock);
// if someone did, it decides again on the row as it is now. A pipeline writes its transcript many
// times in a row, so a call usually costs one round trip. An unchanged value, or a refusal, decided
// on the row as this port left it stands once the row is seen unchanged (one small read). Writers
// that keep getting in between fall back to the locked transaction (readThenWrite: two round trips,
// row lock first). A call of a run that is not the transcript's current run changes nothing and
// gets false (the decider refuses it as stale), so does a failure reported after the transcript ended.
import type { PipelineEventName, TopicRecord, TranscriptState } from "@scribe/contracts";
import { readThenWrite, systemClock, type Clock, type Logger, type Sql } from "@scribe/kit";
import { execute, persistIfUnchanged } from "./changes";
import { decide, loads, type TranscriptCommand, type TranscriptEvent } from "./domain/decider";
import { RuleError, type Aggregate } from "./domain/transcript";
import type { PipelinePatch, TranscriptPort } from "./pipelines/port";
import { loadSnapshot, loadTranscript, rowVersionOf, WEBVTT_NOT_READ, type Snapshot } from "./store";

/** How many transcripts the port remembers as it left them (each without topics, event log, WebVTT). */
const KNOWN_TRANSCRIPTS = 1000;
/** Decisions on an unlocked row before taking the lock (each lost to another writer of that row). */
const UNLOCKED_TRIES = 3;

export interface PortOptions {
  /** Default UNLOCKED_TRIES; 0: every call locks the row first (the tests run the port both ways). */
  unlockedTries?: number;
}

type Outcome = { aggregate: Aggregate | null; events: TranscriptEvent[] };

export class DbTranscriptPort implements TranscriptPort {
  /** By transcript id, in the order last used: the row as this port last read or wrote it. */
  private readonly known = new Map<string, Snapshot>();

  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
    private readonly now: Clock = systemClock,
    private readonly opts: PortOptions = {},
  ) {}

  private async run(transcriptId: string, command: TranscriptCommand & { run_id: string }): Promise<boolean> {
    const ctx = { transcriptId, runId: command.run_id, what: command.type };
    const seen = { currentRunId: null as string | null };
    try {
      const outcome = (await this.unlocked(transcriptId, command, seen)) ?? (await this.locked(transcriptId, command, seen));
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
      if (e.late === "stale_run") this.log.info({ ...ctx, currentRunId: seen.currentRunId }, "stale run: call ignored");
      else if (e.late === "ended")
        this.log.info(
          { ...ctx, reason: command.type === "fail" ? command.reason : undefined },
          "failure after completion: status stays ended",
        );
      else throw e;
      return false;
    }
  }

  /**
   * Decide on the row as known or read unlocked, commit if it is still that row. null: the
   * transcript does not exist; undefined: other writers changed the row every time.
   */
  private async unlocked(
    id: string,
    command: TranscriptCommand,
    seen: { currentRunId: string | null },
  ): Promise<Outcome | null | undefined> {
    const parts = loads(command);
    for (let tries = 0; tries < (this.opts.unlockedTries ?? UNLOCKED_TRIES); tries++) {
      // The topics and the WebVTT are never kept: a command that reads them reads the row.
      const known = parts.topics || parts.webvtt ? undefined : this.known.get(id);
      // An append decides on the known row as if the log did not hold its entry, and its write
      // checks that (one round trip); if the log holds it, the next try reads the row and the entry.
      const assumed =
        known && parts.events ? { ...known, aggregate: { ...known.aggregate, events: [] }, assumedAbsent: parts.events } : known;
      const read = assumed ?? (await loadSnapshot(this.sql, id, { webvtt: false, ...parts }));
      if (!read) {
        this.known.delete(id);
        return null;
      }
      seen.currentRunId = read.aggregate.current_run_id;
      let events: TranscriptEvent[];
      try {
        events = decide(command, read.aggregate);
      } catch (e) {
        if (e instanceof RuleError && known && !(await this.unchangedSince(id, known))) continue;
        throw e;
      }
      if (events.length === 0) {
        if (known && !(await this.unchangedSince(id, known))) continue;
        this.remember(id, read);
        return { aggregate: read.aggregate, events };
      }
      const written = await persistIfUnchanged(this.sql, read, events, this.now());
      if (!written) {
        this.known.delete(id);
        continue;
      }
      this.remember(id, written);
      return { aggregate: written.aggregate, events };
    }
    return undefined;
  }

  /** Whether the row is still as `known` has it (else it is forgotten). */
  private async unchangedSince(id: string, known: Snapshot): Promise<boolean> {
    if ((await rowVersionOf(this.sql, id)) === known.rowVersion) return true;
    this.known.delete(id);
    return false;
  }

  private remember(id: string, row: Snapshot): void {
    const { aggregate } = row;
    this.known.delete(id);
    this.known.set(id, {
      ...row,
      aggregate: { ...aggregate, topics: null, events: null, state: { ...aggregate.state, webvtt: WEBVTT_NOT_READ } },
    });
    if (this.known.size > KNOWN_TRANSCRIPTS) this.known.delete(this.known.keys().next().value!);
  }

  /** The row locked first, then decided and committed: two round trips (readThenWrite). */
  private locked(id: string, command: TranscriptCommand, seen: { currentRunId: string | null }): Promise<Outcome | null> {
    this.known.delete(id);
    return readThenWrite(
      this.sql,
      (tx) => loadTranscript(tx, id, { forUpdate: true, webvtt: false, ...loads(command) }),
      (tx, a) => {
        seen.currentRunId = a?.current_run_id ?? null;
        return a ? execute(tx, a, command, this.now()) : Promise.resolve(null);
      },
    );
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
