// Descriptions of the API's properties for the reference page and generated clients, by property name
// (the same name means the same thing across components), with `Component.property` where it does not.
// A description given in the contract (zod `.describe`) wins.

const BY_COMPONENT: Record<string, string> = {
  "CreateRoom.name": "Room name: unique, used in the room's URL (no '/', '?', '#' or whitespace)",
  "UpdateRoom.name": "Room name: unique, used in the room's URL (no '/', '?', '#' or whitespace)",
  "Room.name": "Room name, unique, part of the room's URL",
  "RoomDetails.name": "Room name, unique, part of the room's URL",
  "CreateTranscript.name": "Transcript name shown in lists",
  "UpdateTranscript.name": "Transcript name shown in lists (null: unchanged)",
  "UpdateTranscript.locked": "Locked transcripts refuse new uploads and processing (null: unchanged)",
  "UpdateTranscript.share_mode": "Who may read the transcript: private, semi-private (signed-in users) or public (null: unchanged)",
  "UpdateTranscript.reviewed": "Whether someone reviewed the transcript (null: unchanged)",
  "UpdateTranscript.participants": "Replaces the whole participant list; entries without id get one",
  "CreateParticipant.name": "Participant's display name",
  "UpdateParticipant.name": "Participant's display name (null: unchanged)",
  "CreateApiKeyRequest.name": "A label for the key (optional)",
  "ApiKeyResponse.name": "The key's label",
  "CreateApiKeyResponse.name": "The key's label",
  "CreateApiKeyResponse.key": "The key itself: shown once, send it as X-API-Key",
  "SendEmailRequest.email": "Address to send the transcript to",
  "AddEmailRecipientRequest.email": "Address that gets the meeting's transcript when it is ready",
  "LoginRequest.email": "The account's e-mail address",
  "UserInfo.email": "The user's e-mail address (null for API-key callers)",
  "DeletionStatus.status": '"ok" when done',
  "ProcessStatus.status": '"ok" when processing was started',
  "ICSStatus.status": "enabled or disabled",
  "ICSSyncResult.status": "Outcome of the sync: success, unchanged, error or skipped",
  "SpeakerAssignment.participant": "Participant id to assign (exactly one of speaker / participant)",
  "SpeakerAssignment.speaker": "Speaker number to assign (exactly one of speaker / participant)",
  "Page_RoomDetails_.items": "The rooms of this page",
  "Page_GetTranscriptMinimal_.items": "The transcripts of this page",
  "SearchResponse.results": "The matching transcripts of this page, best first",
  "SearchResponse.total": "How many transcripts match in all",
  "SearchResponse.query": "The trimmed query (null when browsing)",
  "WebhookTestResult.message": "What happened, in words",
  "WebhookTestResult.error": "Why the test failed, if it did",
  "Meeting.room_name": "The meeting's room on the video platform",
};

const BY_NAME: Record<string, string> = {
  id: "Identifier",
  name: "Name",
  user_id: "Id of the owning user (null when none)",
  created_at: "When it was created (ISO 8601, UTC)",
  updated_at: "When it last changed (ISO 8601, UTC)",
  deleted_at: "When it was moved to the trash (null when not)",
  status: "State or outcome (see the operation)",
  title: "Title (null until generated or set)",
  short_summary: "Short summary (null until generated or set)",
  long_summary: "Long summary (null until generated or set)",
  summary: "Summary",
  duration: "Duration in milliseconds",
  email: "E-mail address",
  description: "Description",
  location: "Location",
  url: "URL",
  type: "Type",
  data: "Event data",
  error: "Error message, if any",
  message: "Message",
  reason: "Why, in words",
  result: "The platform's answer",
  success: "Whether it worked",

  access_token: "Bearer token: send as Authorization: Bearer <token>",
  token_type: 'Always "bearer"',
  expires_in: "Seconds until the token expires",
  password: "The account's password",
  sub: "The user's id",
  email_verified: "Whether the identity provider verified the e-mail address",
  key: "API key",

  zulip_auto_post: "Post transcripts of this room to Zulip when they are ready",
  zulip_stream: "Zulip stream to post to",
  zulip_topic: "Zulip topic to post to",
  is_locked: "Whether the room is locked (its meetings are created locked on the platform)",
  room_mode: "normal or group",
  recording_type: "none, local or cloud",
  recording_trigger: "When recording starts: none, prompt, automatic or automatic-2nd-participant",
  is_shared: "Shared rooms and their transcripts are visible to every user",
  webhook_url: 'URL called with the room\'s transcript events ("" for none; null when hidden from non-owners)',
  webhook_secret: 'Secret signing the webhook calls ("" generates one; null when hidden from non-owners)',
  ics_url: 'ICS calendar feed of the room (null or "" for none)',
  ics_fetch_interval: "How often the ICS feed is fetched, in seconds (requests may give 1 to 60 minutes)",
  ics_enabled: "Whether the ICS feed is synced",
  ics_last_sync: "When the ICS feed was last synced successfully",
  ics_last_etag: "Hash of the last fetched ICS feed",
  platform: "Video platform of the room's meetings",
  skip_consent: "Record without asking participants for consent",
  email_transcript_to: "Address that gets every transcript of the room",
  store_video: "Keep the meeting's video, not only its audio",

  room_id: "Id of the room (null when none)",
  room_name: "Name of the room (null when none)",
  room_url: "URL participants open to join",
  host_room_url: "URL with host rights (only for the room's owner)",
  meeting_id: "Id of the meeting",
  start_date: "When the meeting started",
  end_date: "When the meeting ends",
  is_active: "Whether the meeting is still going on",
  num_clients: "Participants present",
  calendar_event_id: "Id of the calendar event the meeting was made for",
  calendar_metadata: "Title, description and attendees of that calendar event",
  email_recipients: "Addresses that get the meeting's transcript",
  daily_composed_video_s3_key: "Where the meeting's composed cloud video is stored",
  daily_composed_video_duration: "Length of the composed cloud video in seconds",
  allow_duplicated: "Start another meeting even if one is active",
  consent_given: "Whether the participant agrees to be recorded",
  consent_id: "Id of the stored consent answer",
  instanceId: "Id of the recording start (UUID): a retry with the same id starts nothing twice",

  start_time: "When the event starts",
  end_time: "When the event ends",
  attendees: "The event's attendees",
  ics_uid: "The event's UID in the feed",
  last_sync: "When the feed was last synced successfully",
  next_sync: "When the next sync is due (last_sync + ics_fetch_interval)",
  last_etag: "ETag or hash of the last fetched feed",
  last_attempt: "When a sync was last tried",
  last_result: "Outcome of the last attempt",
  last_error: "Why the last attempt failed, if it did",
  last_synced: "When the feed was last synced",
  hash: "Hash of the fetched feed",
  events_found: "Events in the feed",
  events_count: "Events stored for the room",
  total_events: "Events in the feed",
  events_created: "Events added",
  events_updated: "Events changed",
  events_deleted: "Events removed",
  event: "The event",

  locked: "Locked transcripts refuse new uploads and processing",
  share_mode: "Who may read the transcript: private, semi-private (signed-in users) or public",
  source_kind: "Where the audio came from: room (a meeting), live or file (an upload)",
  source_language: "Language spoken (ISO 639-1)",
  target_language: "Language of the transcript (ISO 639-1)",
  reviewed: "Whether someone reviewed the transcript",
  audio_deleted: "Whether the audio was deleted (e.g. consent refused)",
  participants: "The people speaking, with their speaker numbers",
  participant: "Participant id",
  speaker: "Speaker number in the audio (null when not assigned)",
  speaker_from: "Speaker number to merge away",
  speaker_to: "Speaker number to merge into",
  timestamp: "Time in seconds from the start",
  timestamp_from: "Start of the range, seconds from the start of the audio",
  timestamp_to: "End of the range, seconds from the start of the audio",
  change_seq: "Position in the change feed: grows with every change",
  has_cloud_video: "Whether the meeting has a composed cloud video",
  cloud_video_duration: "Length of that video in seconds",
  action_items: "Decisions and next steps found in the meeting (null when none were generated)",
  transcript_format: "Format of `transcript`: text, text-timestamped, webvtt-named or json",
  transcript: "The transcript in the requested format",
  words: "The topic's words with their times and speakers",
  words_per_speaker: "The topic's words grouped by consecutive speaker",
  segments: "The topic's text by speaker segment",
  runs: "Processing runs, newest first",
  content_type: "Media type of the file",
  sdp: "Session description (WebRTC)",

  items: "The objects of this page",
  total: "How many objects there are in all",
  page: "Page number, from 1",
  size: "Page size",
  pages: "Number of pages",
  limit: "Page size",
  offset: "Results skipped",
  query: "The query",
  results: "Results",
  sent: "E-mails sent",
  status_code: "HTTP status the webhook answered",
  response_preview: "Start of the webhook's answer",
  zulip_enabled: "Whether posting to Zulip is configured",
  email_enabled: "Whether sending e-mail is configured",
  stream_id: "Zulip stream id",
  apiVersion: "Webhook API version",
  createdAt: "When the platform sent the event",
};

type Json = Record<string, unknown>;

function describe(component: string, properties: Record<string, Json>): void {
  for (const [name, property] of Object.entries(properties)) {
    if (typeof property !== "object" || property === null || typeof property.description === "string") continue;
    const description = BY_COMPONENT[`${component}.${name}`] ?? BY_NAME[name];
    if (description) property.description = description;
  }
}

function describeSchema(component: string, schema: Json | undefined): void {
  if (!schema) return;
  const parts = ["allOf", "anyOf", "oneOf"].flatMap((key) => (schema[key] as Json[] | undefined) ?? []);
  for (const part of [schema, ...parts]) {
    if (part.properties) describe(component, part.properties as Record<string, Json>);
  }
}

type Content = { content?: Record<string, { schema?: Json }> } | undefined;

/** Describes the top-level properties of every component schema and of inline bodies and answers. */
export function describeProperties(generated: object): void {
  const document = generated as {
    paths?: Record<string, Record<string, { requestBody?: Content; responses?: Record<string, Content> }>>;
    components?: { schemas?: Record<string, Json> };
  };
  for (const [component, schema] of Object.entries(document.components?.schemas ?? {})) describeSchema(component, schema);
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      describeSchema("", operation.requestBody?.content?.["application/json"]?.schema);
      describeSchema("", operation.responses?.["200"]?.content?.["application/json"]?.schema);
    }
  }
}
