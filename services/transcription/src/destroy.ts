// Permanent deletion (api.md §2.10 destroy, retention): the running run is cancelled, the row goes,
// and transcript.destroyed tells the others (recordings purges every file, projection tombstones it).
import type { Tx } from "@scribe/kit";
import { persist } from "./changes";
import type { TranscriptEvent } from "./domain/decider";
import type { Aggregate } from "./domain/transcript";
import { cancelPipeline } from "./pipelines/index";

/** Commit a decided destroy; returns the version the destruction was announced with. */
export async function destroyTranscript(tx: Tx, a: Aggregate, decided: TranscriptEvent[]): Promise<number> {
  const destroyed = decided.find((e) => e.type === "transcript.destroyed");
  if (!destroyed) throw new Error("destroyTranscript needs a decided transcript.destroyed");
  if (a.current_run_id) await cancelPipeline(tx, a.current_run_id, `transcript destroyed (${destroyed.data.reason})`);
  await persist(tx, a, decided);
  return destroyed.data.transcript.version;
}
