// What a completed transcript sets off (behaviour-search-notify-auth §3.2, §4.6, §5.4): the room's
// webhook, its team-chat report, the e-mails to the meeting's recipients and the room's address,
// and whether the transcript must become public. Pure: the notifier's copies come in.
import {
  completedTexts,
  type CalendarMetadata,
  type EmailRecipient,
  type TranscriptCompleted,
  type WebhookPayloadBody,
} from "@scribe/contracts";
import type { z } from "zod";
import { recipientsAfterProcessing, type PlannedRecipient } from "./email";
import { calendarEventOf, webhookTranscript } from "./webhook";
import { zulipMessage } from "./zulip";

/** The notifier's copy of a room (from ROOMS events). */
export interface RoomCopy {
  id: string;
  name: string;
  user_id: string;
  webhook_url: string | null;
  zulip_auto_post: boolean;
  zulip_stream: string;
  zulip_topic: string;
  email_transcript_to: string | null;
  version: number;
  deleted: boolean;
}

/** The notifier's copy of a meeting (from MEETINGS events). */
export interface MeetingCopy {
  id: string;
  room_id: string;
  email_recipients: EmailRecipient[];
  calendar_event_id: string | null;
  calendar_metadata: CalendarMetadata | null;
  version: number;
  deleted: boolean;
}

export interface NotifierSettings {
  emailEnabled: boolean;
  zulipEnabled: boolean;
  uiBaseUrl: string;
}

export interface CompletionPlan {
  webhook: WebhookPayloadBody | null;
  zulip: { stream: string; topic: string; content: string } | null;
  emails: PlannedRecipient[];
}

type Completed = z.infer<typeof TranscriptCompleted>;

/** The webhook's transcript, with the WebVTTs as v1 carried them (unpacked only when a webhook goes). */
function completedWebhookTranscript(completed: Completed, uiBaseUrl: string) {
  const { webvtt, topics } = completedTexts(completed);
  return webhookTranscript({ ...completed.transcript, webvtt }, topics, uiBaseUrl);
}

export function planCompletion(
  completed: Completed,
  room: RoomCopy | null,
  meeting: MeetingCopy | null,
  settings: NotifierSettings,
): CompletionPlan {
  const t = completed.transcript;
  const liveRoom = room && !room.deleted && room.id === t.room_id ? room : null;
  const liveMeeting = meeting && !meeting.deleted && meeting.id === t.meeting_id ? meeting : null;

  const webhook: WebhookPayloadBody | null = liveRoom?.webhook_url
    ? {
        transcript: completedWebhookTranscript(completed, settings.uiBaseUrl),
        room: { id: liveRoom.id, name: liveRoom.name },
        calendar_event: calendarEventOf(liveMeeting?.calendar_event_id ?? null, liveMeeting?.calendar_metadata ?? null),
      }
    : null;

  const zulip =
    settings.zulipEnabled && liveRoom?.zulip_auto_post && liveRoom.zulip_stream
      ? {
          stream: liveRoom.zulip_stream,
          topic: liveRoom.zulip_topic,
          content: zulipMessage({ ...t, topics: completed.topics, includeTopics: true, uiBaseUrl: settings.uiBaseUrl }),
        }
      : null;

  const meetingRecipients = liveMeeting?.email_recipients ?? [];
  const emails = settings.emailEnabled ? recipientsAfterProcessing(meetingRecipients, liveRoom?.email_transcript_to ?? null) : [];
  // Recipients never change who may read the transcript: the e-mail carries the text, and its
  // link opens for those who may read it anyway (issue 15.4; the reference made it public).
  return { webhook, zulip, emails };
}
