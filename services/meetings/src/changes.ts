// State changes shared by the API, the platform webhooks and the processing job: each writes the
// meeting or stay and records its event in the caller's transaction.
import { randomUUID } from "node:crypto";
import { makeEvent, type DeactivationReason, type MeetingParticipantSession, type MeetingState } from "@scribe/contracts";
import { emit, type Db } from "@scribe/kit";
import { scribeUserId } from "./domain/presence";
import { closeStays, countOpenStays, grantedUserIds, insertClosedStay, openStay, openStays, updateMeeting, type StayRow } from "./store";

export const SOURCE = "scribe/meetings";

/** The next version of a meeting after a change made at `now`. */
export function changed(meeting: MeetingState, patch: Partial<MeetingState>, now: Date): MeetingState {
  return { ...meeting, ...patch, version: meeting.version + 1, updated_at: now.toISOString() };
}

export async function deactivateMeeting(tx: Db, meeting: MeetingState, reason: DeactivationReason, now: Date): Promise<MeetingState> {
  const next = changed(meeting, { is_active: false, deactivated_at: now.toISOString(), deactivation_reason: reason }, now);
  await updateMeeting(tx, next);
  await emit(tx, makeEvent("meeting.deactivated", next, { source: SOURCE, time: now }));
  return next;
}

function sessionEvent(meeting: MeetingState, row: StayRow): MeetingParticipantSession {
  return {
    id: row.id,
    meeting_id: meeting.id,
    room_id: meeting.room_id,
    platform: meeting.platform,
    session_id: row.session_id,
    user_id: row.user_id,
    name: row.user_name,
    joined_at: row.joined_at.toISOString(),
    left_at: row.left_at ? row.left_at.toISOString() : null,
  };
}

export interface Participant {
  sessionId: string;
  /** The platform's user id; stored only when it is a user who joined through Scribe. */
  userId: string | null;
  userName: string;
  joinedAt: Date | null;
}

/** Open a stay for a participant who joined (no-op when the session already has an open one). */
export async function participantJoined(tx: Db, meeting: MeetingState, p: Participant, at: Date): Promise<StayRow | null> {
  const grants = await grantedUserIds(tx, meeting.id);
  const row = await openStay(tx, {
    id: randomUUID(),
    meeting_id: meeting.id,
    session_id: p.sessionId,
    user_id: scribeUserId(p.userId, grants),
    user_name: p.userName,
    joined_at: p.joinedAt ?? at,
  });
  if (row) await emit(tx, makeEvent("meeting.participant.joined", sessionEvent(meeting, row), { source: SOURCE, time: at }));
  return row;
}

/** Close the participant's open stay; a leave whose join was never seen still records the stay. */
export async function participantLeft(tx: Db, meeting: MeetingState, p: Participant, at: Date): Promise<void> {
  const open = (await openStays(tx, meeting.id)).filter((s) => s.sessionId === p.sessionId);
  let rows = await closeStays(
    tx,
    open.map((s) => s.id),
    at,
  );
  if (open.length === 0) {
    const grants = await grantedUserIds(tx, meeting.id);
    const joinedAt = p.joinedAt ?? at;
    rows = [
      await insertClosedStay(tx, {
        id: randomUUID(),
        meeting_id: meeting.id,
        session_id: p.sessionId,
        user_id: scribeUserId(p.userId, grants),
        user_name: p.userName,
        joined_at: joinedAt,
        left_at: at < joinedAt ? joinedAt : at,
      }),
    ];
  }
  for (const row of rows) await emit(tx, makeEvent("meeting.participant.left", sessionEvent(meeting, row), { source: SOURCE, time: at }));
}

/** Close the given open stays (everyone, when `ids` is omitted) at `at`. */
export async function closeOpenStays(tx: Db, meeting: MeetingState, at: Date, ids?: string[]): Promise<void> {
  const target = ids ?? (await openStays(tx, meeting.id)).map((s) => s.id);
  const rows = await closeStays(tx, target, at);
  for (const row of rows) await emit(tx, makeEvent("meeting.participant.left", sessionEvent(meeting, row), { source: SOURCE, time: at }));
}

/** Keep num_clients true: the platform's count when it sends one, else the open stays. No event (activity). */
export async function refreshClientCount(tx: Db, meeting: MeetingState, platformCount: number | null, now: Date): Promise<MeetingState> {
  const count = platformCount ?? (await countOpenStays(tx, meeting.id));
  if (count === meeting.num_clients) return meeting;
  const next = changed(meeting, { num_clients: count }, now);
  await updateMeeting(tx, next);
  return next;
}
