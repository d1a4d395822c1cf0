// The processing runs of a transcript as the API shows them (GET /v1/transcripts/{id}/runs): what
// the owner needs to see why processing stalls or failed, without the ops CLI (others see the
// statuses, not the error texts).
import { transcriptionOps, type TranscriptRuns } from "@scribe/contracts";
import type { RpcServer, Sql } from "@scribe/kit";
import { getRun, listRuns, type RunDetail } from "@scribe/workflow";
import { assertRead } from "./access";
import { loadTranscript } from "./store";

const RUNS_SHOWN = 20;

export function registerRunQueries(rpc: RpcServer, sql: Sql): void {
  rpc.handle(transcriptionOps.runs, async ({ caller, id }) => {
    const a = await loadTranscript(sql, id, { topics: false, events: false });
    assertRead(a?.state ?? null, caller);
    const summaries = await listRuns(sql, { subject: id, limit: RUNS_SHOWN });
    const details = await Promise.all(summaries.map((r) => getRun(sql, r.id)));
    // Step errors carry scratch paths and ffmpeg's stderr: for the owner, not for every reader.
    const owner = caller.userId !== null && caller.userId === a?.state.user_id;
    return { runs: details.flatMap((d) => (d ? [runView(d, owner)] : [])) };
  });
}

function runView(r: RunDetail, showErrors: boolean): TranscriptRuns["runs"][number] {
  return {
    id: r.id,
    workflow: r.workflow,
    status: r.status,
    error: showErrors ? r.error : null,
    error_step: r.errorStep,
    created_at: r.createdAt,
    finished_at: r.finishedAt,
    duration_ms: r.durationMs,
    // A fan-out's group row only counts its items; the items themselves are shown.
    steps: r.steps
      .filter((s) => s.itemCount === null)
      .map((s) => ({
        step: s.step,
        index: s.index,
        status: s.status,
        attempts: s.attempts,
        max_attempts: s.maxAttempts,
        last_error: showErrors ? s.lastError : null,
        started_at: s.startedAt,
        finished_at: s.finishedAt,
        duration_ms: s.durationMs,
      })),
  };
}
