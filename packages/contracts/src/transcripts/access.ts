// Who may read or change a transcript (api.md §0.6, behaviour-transcripts-pipelines §1.7). Pure rules
// shared by every service that answers for transcripts, so they cannot drift apart.
import type { Caller } from "../common/schemas";

export interface TranscriptAccessFacts {
  user_id: string | null;
  share_mode: "public" | "semi-private" | "private";
  deleted_at: string | null;
}

export type ReadDecision =
  { ok: true } | { ok: false; kind: "not_found" | "forbidden"; detail: "Transcript not found" | "Transcript access denied" };

/** READ(t): missing/soft-deleted → not found; anonymous transcripts → everyone; then share mode. */
export function canReadTranscript(t: TranscriptAccessFacts | null, caller: Caller): ReadDecision {
  if (!t || t.deleted_at !== null) return { ok: false, kind: "not_found", detail: "Transcript not found" };
  if (t.user_id === null) return { ok: true };
  if (caller.userId !== null && caller.userId === t.user_id) return { ok: true };
  if (t.share_mode === "public") return { ok: true };
  if (t.share_mode === "semi-private" && caller.userId !== null) return { ok: true };
  return { ok: false, kind: "forbidden", detail: "Transcript access denied" };
}

/**
 * Whether a transcript shared by e-mail on request carries its link: only a public one, whose link
 * opens without signing in (behaviour-search-notify-auth §4.3). A share-mode rule of transcripts,
 * kept here with READ so the notifier, which sends the e-mail, decides nothing from share modes.
 */
export function sharedEmailIncludesLink(t: { share_mode: string }): boolean {
  return t.share_mode === "public";
}

/** OWNER(t): signed-in owner only; anonymous transcripts are never mutable (PATCH, delete, restore, destroy, zip). */
export function isTranscriptOwner(t: Pick<TranscriptAccessFacts, "user_id">, caller: Caller): boolean {
  return caller.userId !== null && t.user_id === caller.userId;
}

/** EDIT(t): participants and speakers: anyone on an anonymous transcript, else its owner. */
export function canEditTranscript(t: Pick<TranscriptAccessFacts, "user_id">, caller: Caller): boolean {
  return t.user_id === null || isTranscriptOwner(t, caller);
}

/**
 * Listing and search: not soft-deleted, and (signed in: own transcripts or those of shared rooms;
 * anonymous in PUBLIC_MODE: ownerless (anonymous) and public transcripts and those of shared rooms —
 * the reference lists every user's private transcripts there, Scribe does not; anonymous otherwise:
 * shared rooms' transcripts). Whether an anonymous caller may list at all is a separate question
 * (`anonymousMayUsePublicRoutes`: PUBLIC_MODE or AUTH_BACKEND=none).
 */
export function listedFor(t: TranscriptAccessFacts & { room_is_shared: boolean }, caller: Caller, publicMode: boolean): boolean {
  if (t.deleted_at !== null) return false;
  if (t.room_is_shared) return true;
  if (caller.userId === null) return publicMode && (t.user_id === null || t.share_mode === "public");
  return t.user_id === caller.userId;
}

/** `listedFor` as a query filter (soft deletion aside), for services that list or search in SQL. */
export type ListingScope =
  { kind: "ownerless_public_or_shared_rooms" } | { kind: "own_or_shared_rooms"; userId: string } | { kind: "shared_rooms" };

export function listingScope(caller: Caller, publicMode: boolean): ListingScope {
  if (caller.userId === null) return publicMode ? { kind: "ownerless_public_or_shared_rooms" } : { kind: "shared_rooms" };
  return { kind: "own_or_shared_rooms", userId: caller.userId };
}

/** A row's fate under a scope; the SQL filters of list and search implement exactly this. */
export function inScope(
  scope: ListingScope,
  t: { user_id: string | null; share_mode: TranscriptAccessFacts["share_mode"]; room_is_shared: boolean },
): boolean {
  if (t.room_is_shared) return true;
  if (scope.kind === "ownerless_public_or_shared_rooms") return t.user_id === null || t.share_mode === "public";
  if (scope.kind === "shared_rooms") return false;
  return t.user_id === scope.userId;
}
