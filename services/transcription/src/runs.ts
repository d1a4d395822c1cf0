// The processing runs of a transcript as the API shows them (GET /v1/transcripts/{id}/runs): what
// an operator or the owner needs to see why processing stalls or failed, without the ops CLI.
import { transcriptionOps, type TranscriptRuns } from "@scribe/contracts";
import type { RpcServer, Sql } from "@scribe/kit";
import { getRun, listRuns, type RunDetail } from "@scribe/workflow";
import { assertRead } from "./access";
import { loadTranscript } from "./store";

const RUNS_SHOWN = 20;

export function registerRunQueries(rpc: RpcServer, sql: Sql): void {
  rpc.handle(transcriptionOps.runs, async ({ caller, id }) => {
    const a = await loadTranscript(sql, id);
    assertRead(a?.state ?? null, caller);
    const summaries = await listRuns(sql, { subject: id, limit: RUNS_SHOWN });
    const details = await Promise.all(summaries.map((r) => getRun(sql, r.id)));
    return { runs: details.flatMap((d) => (d ? [runView(d)] : [])) };
  });
}

function runView(r: RunDetail): TranscriptRuns["runs"][number] {
  return {
    id: r.id,
    workflow: r.workflow,
    status: r.status,
    error: r.error,
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
        last_error: s.lastError,
        started_at: s.startedAt,
        finished_at: s.finishedAt,
        duration_ms: s.durationMs,
      })),
  };
}
