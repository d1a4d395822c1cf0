// The transcript's processing runs for its owner (GET …/runs, a Scribe extension): each run's
// workflow, outcome and steps with attempts, timings and the last error. Loaded when opened, and
// again whenever `refresh` changes (a status change on the socket).
import { useEffect, useState } from "preact/hooks";
import type { Schemas } from "@scribe/client";
import { api, describeError } from "../api";

type Run = Schemas["TranscriptRun"];

const seconds = (ms: number | null) => (ms == null ? "—" : `${(ms / 1000).toFixed(1)} s`);

export function Runs({ transcriptId, refresh }: { transcriptId: string; refresh: unknown }) {
  const [open, setOpen] = useState(false);
  const [runs, setRuns] = useState<Run[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!open) return;
    let current = true;
    void api
      .GET("/v1/transcripts/{transcript_id}/runs", { params: { path: { transcript_id: transcriptId } } })
      .then(({ data, error: failure }) => {
        if (!current) return;
        setError(data ? null : describeError(failure));
        setRuns(data?.runs ?? null);
      });
    return () => {
      current = false;
    };
  }, [open, transcriptId, refresh]);

  return (
    <details class="runs" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Processing runs</summary>
      {error && <p role="alert">{error}</p>}
      {open && !runs && !error && <p aria-busy="true">Loading runs…</p>}
      {runs?.length === 0 && <p>This transcript has not been processed yet.</p>}
      {runs?.map((run) => (
        <article key={run.id} data-run-id={run.id}>
          <header>
            <strong>{run.workflow}</strong> <span class={`status status-${run.status}`}>{run.status}</span>{" "}
            <small>
              {new Date(run.created_at).toLocaleString()} · {seconds(run.duration_ms)}
            </small>
          </header>
          {run.error && (
            <p role="note">
              Failed{run.error_step ? ` in ${run.error_step}` : ""}: {run.error}
            </p>
          )}
          <div class="overflow-auto">
            <table class="striped">
              <thead>
                <tr>
                  <th scope="col">Step</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Time</th>
                  <th scope="col">Last error</th>
                </tr>
              </thead>
              <tbody>
                {run.steps.map((step) => (
                  <tr key={`${step.step}-${step.index ?? ""}`}>
                    <td>
                      {step.step}
                      {step.index != null ? ` #${step.index + 1}` : ""}
                    </td>
                    <td>{step.status}</td>
                    <td>
                      {step.attempts}/{step.max_attempts}
                    </td>
                    <td>{seconds(step.duration_ms)}</td>
                    <td>{step.last_error ?? ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </article>
      ))}
    </details>
  );
}
