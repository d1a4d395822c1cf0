// Reconciling stored participant stays with what the platform says is present now (behaviour §3.9,
// with the port's fixes: a participant seen again after leaving gets a new stay rather than an
// update of a closed one; "room not found" on the platform means nobody is present).

export interface OpenStay {
  id: string;
  sessionId: string;
}

export interface PresentParticipant {
  /** The platform's participant session id. */
  sessionId: string;
  /** The platform's user id (the one our meeting token set, or the platform's own for guests). */
  userId: string | null;
  userName: string;
  joinedAt: Date;
}

export interface PresenceSnapshot {
  /** Individual participants when the platform reports them (Daily); null when it does not (Whereby). */
  participants: PresentParticipant[] | null;
  anyonePresent: boolean;
  /** The platform knows of a session of this room, now or earlier. */
  everUsed: boolean;
}

export const NOBODY_PRESENT: PresenceSnapshot = { participants: [], anyonePresent: false, everUsed: false };

export interface PresencePlan {
  /** Present now but without an open stay: open one each. */
  open: PresentParticipant[];
  /** Open stays of participants no longer present: close them at `now`. */
  close: OpenStay[];
}

export function reconcilePresence(openStays: OpenStay[], snapshot: PresenceSnapshot): PresencePlan {
  if (snapshot.participants === null) {
    // Only a yes/no from the platform: close everything when nobody is there, else leave stays as
    // the participant webhooks recorded them.
    return { open: [], close: snapshot.anyonePresent ? [] : openStays };
  }
  const present = new Map(snapshot.participants.map((p) => [p.sessionId, p]));
  const openIds = new Set(openStays.map((s) => s.sessionId));
  return {
    open: [...present.values()].filter((p) => !openIds.has(p.sessionId)),
    close: openStays.filter((s) => !present.has(s.sessionId)),
  };
}

/**
 * The Scribe user id to store for a participant: only a user who joined this meeting through
 * Scribe signed in (and so got a token carrying their id); a guest's platform id is not ours.
 */
export function scribeUserId(platformUserId: string | null, grantedUserIds: ReadonlySet<string>): string | null {
  return platformUserId !== null && grantedUserIds.has(platformUserId) ? platformUserId : null;
}
