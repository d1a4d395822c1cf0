// Follows a transcript over its WebSocket until processing ends: the status as it changes and what
// the pipeline announces on the way (duration, title), then hands over to `onEnded`.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { FINISHED, transcriptEvents } from "../events";

export const STATUS_TEXT: Record<string, string> = {
  idle: "Waiting for audio",
  uploaded: "Uploaded, waiting to be processed",
  recording: "Recording",
  processing: "Processing (transcribing, finding topics, summarising)",
  ended: "Done",
  error: "Processing failed",
};

/**
 * `onReconnect`: the socket opened again after a drop and is about to replay the stored log (a page
 * that collects replayed events drops what it has, or it would show them twice).
 */
export function useTranscriptStatus(
  id: string | null,
  initial: string,
  onEvent?: (event: string, data: Record<string, unknown>) => void,
  onReconnect?: () => void,
) {
  const [status, setStatus] = useState(initial);
  useEffect(() => {
    if (!id) return;
    let current = true;
    // The socket does not replay STATUS: read where the transcript is now (unless an event already
    // told, when `onlyIfUntold`), at the start and after a reconnect (what changed during the gap).
    const readStatus = (onlyIfUntold: boolean) =>
      void api.GET("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id: id } } }).then(({ data }) => {
        if (current && data) setStatus((s) => (onlyIfUntold && s !== initial ? s : data.status));
      });
    const close = transcriptEvents(
      id,
      (e) => {
        if (!current) return;
        if (e.event === "STATUS" && typeof e.data.value === "string") setStatus(e.data.value);
        onEvent?.(e.event, e.data);
      },
      {
        onReconnect: () => {
          onReconnect?.();
          readStatus(false);
        },
      },
    );
    readStatus(true);
    return () => {
      current = false;
      close();
    };
    // `initial`, `onEvent` and `onReconnect` are read once per transcript on purpose.
  }, [id]);
  return [status, setStatus] as const;
}

export function ProcessingStatus({ status, steps }: { status: string; steps: string[] }) {
  return (
    <article aria-live="polite">
      <header>
        <span class={`status status-${status}`} data-status={status}>
          {status}
        </span>{" "}
        {STATUS_TEXT[status] ?? status}
      </header>
      {!FINISHED.has(status) && <progress aria-label="Processing" />}
      {steps.length > 0 && (
        <ul>
          {steps.map((s, i) => (
            <li key={i}>{s}</li>
          ))}
        </ul>
      )}
    </article>
  );
}
