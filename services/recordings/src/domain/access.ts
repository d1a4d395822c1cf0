// Who may fetch which media of a transcript: the shared READ / OWNER rules of contracts, plus the
// audio link rule of api.md §2.14 (anonymous callers only get anonymous transcripts' audio).
import { canReadTranscript, isTranscriptOwner, type Caller, type TranscriptAccessFacts, type TranscriptUpdated } from "@scribe/contracts";
import { Forbidden, NotFound, Unauthorized } from "@scribe/kit";

/** A transcript as this service knows it; destroyed ones are gone. */
export interface KnownTranscript {
  state: TranscriptUpdated;
  destroyed: boolean;
}

function facts(t: KnownTranscript | null): TranscriptAccessFacts | null {
  if (!t || t.destroyed) return null;
  return { user_id: t.state.user_id, share_mode: t.state.share_mode, deleted_at: t.state.deleted_at };
}

/** READ: 404 "Transcript not found" / 403 "Transcript access denied". */
export function assertRead(t: KnownTranscript | null, caller: Caller): asserts t is KnownTranscript {
  const decision = canReadTranscript(facts(t), caller);
  if (!decision.ok) throw decision.kind === "not_found" ? NotFound(decision.detail) : Forbidden(decision.detail);
}

/**
 * Audio links are opened by `<audio>` elements that cannot send headers: a caller without any
 * identity gets anonymous transcripts only, even public owned ones (401 "Authentication required").
 */
export function assertAudioRead(t: KnownTranscript | null, caller: Caller): asserts t is KnownTranscript {
  if (facts(t) && caller.userId === null && t!.state.user_id !== null) throw Unauthorized("Authentication required");
  assertRead(t, caller);
}

/** READ then OWNER (zip export): 403 "Not authorized". */
export function assertOwner(t: KnownTranscript | null, caller: Caller): asserts t is KnownTranscript {
  assertRead(t, caller);
  if (!isTranscriptOwner(t.state, caller)) throw Forbidden("Not authorized");
}

/** Operations other services and operators call; the gateway never sends an internal caller. */
export function assertInternal(caller: Caller): void {
  if (caller.via !== "internal") throw Forbidden("Not authorized");
}
