// Permission checks of the write side (api.md §0.6), as the kit's errors (the gateway maps their kinds to statuses).
import { canEditTranscript, canReadTranscript, isTranscriptOwner, type Caller, type TranscriptState } from "@scribe/contracts";
import { AppError, Forbidden, NotFound } from "@scribe/kit";
import { RuleError } from "./domain/transcript";

export const NOT_FOUND = "Transcript not found";

/** READ(t): 404 when missing or soft-deleted, 403 "Transcript access denied". */
export function assertRead(s: TranscriptState | null, caller: Caller): asserts s is TranscriptState {
  const d = canReadTranscript(s, caller);
  if (!d.ok) throw d.kind === "not_found" ? NotFound(d.detail) : Forbidden(d.detail);
}

/** OWNER(t): signed-in owner only. */
export function assertOwner(s: TranscriptState, caller: Caller): void {
  if (!isTranscriptOwner(s, caller)) throw Forbidden("Not authorized");
}

/** EDIT(t): anyone on an anonymous transcript, else the owner. */
export function assertEdit(s: TranscriptState, caller: Caller): void {
  if (!canEditTranscript(s, caller)) throw Forbidden("Not authorized");
}

/** A domain refusal as the kit's error of the same kind (the gateway gives it its status). */
export function asAppError(e: unknown): unknown {
  return e instanceof RuleError ? new AppError(e.kind, e.message) : e;
}

/** Run a domain decision (or a commit of one), turning its refusals into wire errors. */
export function decided<T>(f: () => T): T {
  try {
    const result = f();
    return (result instanceof Promise ? result.catch((e: unknown) => Promise.reject(asAppError(e))) : result) as T;
  } catch (e) {
    throw asAppError(e);
  }
}
