// Permanent deletion (api.md §2.10 destroy, retention): its processing runs and the row go,
// and transcript.destroyed tells the others (recordings purges every file, projection tombstones it).
import type { Tx } from "@scribe/kit";
import { persist } from "./changes";
import type { TranscriptEvent } from "./domain/decider";
import type { Aggregate } from "./domain/transcript";
import { forgetPipelineRuns } from "./pipelines/index";

/** Commit a decided destroy; returns the version the destruction was announced with. */
export async function destroyTranscript(tx: Tx, a: Aggregate, decided: TranscriptEvent[], now: Date): Promise<number> {
  const destroyed = decided.find((e) => e.type === "transcript.destroyed");
  if (!destroyed) throw new Error("destroyTranscript needs a decided transcript.destroyed");
  // Runs keep inputs and step outputs (words, summaries): they go with the transcript, a running one cancelled first.
  await forgetPipelineRuns(tx, a.state.id, `transcript destroyed (${destroyed.data.reason})`);
  await persist(tx, a, decided, now);
  return destroyed.data.transcript.version;
}
