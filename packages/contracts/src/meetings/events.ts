// Meeting events (MEETINGS stream), written by the meetings service. Each carries what a consumer
// needs without asking: meeting lifecycle events the full meeting state, participant and consent
// events the meeting and room ids with the record. Subjects end with the meeting id, so one
// meeting's events stay in order.
import { z } from "@hono/zod-openapi";
import { defineEvent } from "../common/event-def";
import { Platform } from "../common/enums";
import { EmailRecipient, MeetingState } from "./api";

const datetime = z.iso.datetime({ offset: true });

/** One stay of a participant in a meeting: a participant who leaves and comes back gets a new one. */
export const MeetingParticipantSession = z.object({
  /** Scribe's id of this stay. */
  id: z.string(),
  meeting_id: z.string(),
  room_id: z.string(),
  platform: Platform,
  /** The platform's participant session id (Daily participant id, Whereby participantId). */
  session_id: z.string(),
  /** Scribe user id when the participant joined signed in (through Scribe's join). */
  user_id: z.string().nullable(),
  /** Display name on the platform ("" when the platform sent none). */
  name: z.string(),
  joined_at: datetime,
  left_at: datetime.nullable(),
});
export type MeetingParticipantSession = z.infer<typeof MeetingParticipantSession>;

export const MeetingConsentRecorded = z.object({
  consent_id: z.string(),
  meeting_id: z.string(),
  room_id: z.string(),
  /** null: an anonymous answer (always a new record); else the user's one record, overwritten. */
  user_id: z.string().nullable(),
  consent_given: z.boolean(),
  consent_timestamp: datetime,
  /** After this answer, does any record of the meeting deny consent (what the audio cleanup checks). */
  any_denial: z.boolean(),
  /** The room asks no consent (its clients do not show the question); the record is kept anyway. */
  skip_consent: z.boolean(),
});
export type MeetingConsentRecorded = z.infer<typeof MeetingConsentRecorded>;

export const MeetingEmailRecipientAdded = z.object({
  meeting: MeetingState,
  recipient: EmailRecipient,
});
export type MeetingEmailRecipientAdded = z.infer<typeof MeetingEmailRecipientAdded>;

export const meetingEvents = [
  defineEvent({ type: "meeting.created", stream: "MEETINGS", version: 1, data: MeetingState, aggregateId: (d) => d.id }),
  /** A change other than activity: the composed video was stored on it. */
  defineEvent({ type: "meeting.updated", stream: "MEETINGS", version: 1, data: MeetingState, aggregateId: (d) => d.id }),
  /** Became inactive (never reactivated); `deactivation_reason` says why. */
  defineEvent({ type: "meeting.deactivated", stream: "MEETINGS", version: 1, data: MeetingState, aggregateId: (d) => d.id }),
  /** Removed with its room, or by retention with its expired anonymous transcript; consent and participant records went with it. */
  defineEvent({ type: "meeting.deleted", stream: "MEETINGS", version: 1, data: MeetingState, aggregateId: (d) => d.id }),
  defineEvent({
    type: "meeting.participant.joined",
    stream: "MEETINGS",
    version: 1,
    data: MeetingParticipantSession,
    aggregateId: (d) => d.meeting_id,
  }),
  defineEvent({
    type: "meeting.participant.left",
    stream: "MEETINGS",
    version: 1,
    data: MeetingParticipantSession,
    aggregateId: (d) => d.meeting_id,
  }),
  /** consent_given = true. */
  defineEvent({
    type: "meeting.consent.given",
    stream: "MEETINGS",
    version: 1,
    data: MeetingConsentRecorded,
    aggregateId: (d) => d.meeting_id,
  }),
  /** consent_given = false: a denial, or a signed-in user changing their answer to no. */
  defineEvent({
    type: "meeting.consent.withdrawn",
    stream: "MEETINGS",
    version: 1,
    data: MeetingConsentRecorded,
    aggregateId: (d) => d.meeting_id,
  }),
  defineEvent({
    type: "meeting.email_recipient.added",
    stream: "MEETINGS",
    version: 1,
    data: MeetingEmailRecipientAdded,
    aggregateId: (d) => d.meeting.id,
  }),
] as const;
