// Which users a participant may be linked to. A linked participant shows its user's e-mail to every
// reader of the transcript, so a link to an arbitrary user id would reveal that user's address
// (issue 15.7). An edit may link the caller itself, or keep a link the transcript already has (the
// pipeline links the meeting's signed-in participants; a client sends those back unchanged).
import type { StoredParticipant, ValidationError } from "@scribe/contracts";

export function refusedUserLinks(
  current: readonly Pick<StoredParticipant, "user_id">[],
  proposed: readonly { user_id?: string | null }[],
  callerId: string | null,
): ValidationError[] {
  const linked = new Set(current.flatMap((p) => (p.user_id ? [p.user_id] : [])));
  return proposed.flatMap((p, i) =>
    p.user_id && p.user_id !== callerId && !linked.has(p.user_id)
      ? [
          {
            loc: ["body", "participants", i, "user_id"],
            msg: "You may link only yourself or a user already linked to this transcript",
            type: "value_error",
          },
        ]
      : [],
  );
}
