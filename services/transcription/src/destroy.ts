// Permanent deletion (api.md §2.10 destroy, retention): the running run is cancelled, the row goes,
// and transcript.destroyed tells the others (recordings purges every file, projection tombstones it).
import { makeEvent } from "@scribe/contracts";
import { emit, type Tx } from "@scribe/kit";
import { SOURCE } from "./changes";
import type { Aggregate } from "./domain/transcript";
import { cancelPipeline } from "./pipelines/index";
import { deleteTranscript } from "./store";

/** Returns the version the destruction was announced with. */
export async function destroyTranscript(tx: Tx, a: Aggregate, reason: "user" | "retention"): Promise<number> {
  if (a.current_run_id) await cancelPipeline(tx, a.current_run_id, `transcript destroyed (${reason})`);
  await deleteTranscript(tx, a.state.id);
  const transcript = { ...a.state, version: a.state.version + 1, updated_at: new Date().toISOString() };
  await emit(tx, makeEvent("transcript.destroyed", { transcript, reason }, { source: SOURCE }));
  return transcript.version;
}
