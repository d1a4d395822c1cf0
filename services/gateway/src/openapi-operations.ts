// What the API reference says about each operation beyond its shapes: a summary, who may call it
// (api.md's auth tags) and the refusals it answers. Kept beside the routes rather than in each
// createRoute so the reference can be read, and checked, as one table; a route's own `summary` wins.

/**
 * `none`: reads no credentials (or its own: platform signatures, a WebSocket subprotocol);
 * `optional`: uses a user when one signs in; `public`: needs one unless PUBLIC_MODE; `user`: needs one.
 */
export type Access = "none" | "optional" | "public" | "user";

export interface OperationReference {
  summary: string;
  access: Access;
  /** Refusals besides 401 (credentials), 404 (path parameters) and 422 (validation), which follow from the route. */
  errors?: number[];
}

/** api.md READ/EDIT: someone else's transcript is 403, an unknown one 404. */
const GUARDED = [403, 404];

export const OPERATIONS: Record<string, OperationReference> = {
  health: { summary: "Health check", access: "none" },
  metrics: { summary: "Prometheus metrics of this process", access: "none" },
  v1_login: { summary: "Sign in with e-mail and password (AUTH_BACKEND=password)", access: "none", errors: [401, 429] },
  v1_user_me: { summary: "The signed-in user, or null", access: "optional" },
  v1_list_api_keys: { summary: "List my API keys", access: "user" },
  v1_create_api_key: { summary: "Create an API key (the key is shown once)", access: "user" },
  v1_delete_api_key: { summary: "Delete one of my API keys", access: "user" },
  v1_get_config: { summary: "Features this installation offers", access: "none" },
  app_config: { summary: "What the web app needs before anyone signs in: auth mode, identity provider, upload limits", access: "none" },

  v1_rooms_list: { summary: "List my rooms and shared rooms", access: "public" },
  v1_rooms_create: { summary: "Create a room", access: "user", errors: [400] },
  v1_rooms_get: { summary: "Get a room by id", access: "optional", errors: [403] },
  v1_rooms_update: { summary: "Update a room (only the fields sent)", access: "user", errors: [400, 403] },
  v1_rooms_delete: { summary: "Delete a room", access: "user", errors: [403] },
  v1_rooms_get_by_name: { summary: "Get a room by name", access: "optional" },
  v1_rooms_test_webhook: { summary: "Send a test event to the room's webhook", access: "user", errors: [403] },
  v1_rooms_sync_ics: { summary: "Sync the room's ICS calendar now", access: "optional", errors: [400, 403] },
  v1_rooms_ics_status: { summary: "The room's ICS sync status", access: "optional", errors: [403] },
  v1_rooms_list_meetings: { summary: "The room's calendar events", access: "optional", errors: [403] },
  v1_rooms_list_upcoming_meetings: { summary: "The room's upcoming calendar events", access: "optional", errors: [403] },

  v1_rooms_create_meeting: {
    summary: "Start a meeting in a room (or get the active one)",
    access: "optional",
    errors: [400, 403, 409, 502, 503],
  },
  v1_rooms_list_active_meetings: { summary: "The room's active meetings", access: "optional" },
  v1_rooms_get_meeting: { summary: "Get a meeting of a room", access: "optional", errors: [403] },
  v1_rooms_join_meeting: { summary: "Join a meeting (host URL for the owner)", access: "optional", errors: [400, 403] },
  v1_meeting_audio_consent: { summary: "Answer the recording consent question", access: "optional", errors: [403] },
  v1_meeting_deactivate: { summary: "End a meeting", access: "user", errors: [403] },
  v1_start_recording: { summary: "Start recording a meeting on its platform", access: "optional", errors: [400, 403, 502, 503] },
  v1_add_email_recipient: { summary: "Get the meeting's transcript by e-mail", access: "optional", errors: [403] },
  v1_webhook: { summary: "Daily webhook receiver (signed by the platform)", access: "none" },
  v1_whereby_webhook: { summary: "Whereby webhook receiver (signed by the platform)", access: "none" },

  v1_transcripts_list: { summary: "List transcripts (or the change feed by change_seq)", access: "public" },
  v1_transcripts_create: { summary: "Create a transcript", access: "public", errors: [429] },
  v1_transcripts_search: { summary: "Search transcripts (full text, kind filter, trash view)", access: "public" },
  v1_transcript_get: { summary: "Get a transcript in a text, WebVTT or JSON format", access: "optional", errors: GUARDED },
  v1_transcript_update: { summary: "Update a transcript (only the fields sent)", access: "user", errors: GUARDED },
  v1_transcript_delete: { summary: "Move a transcript to the trash (soft delete)", access: "user", errors: GUARDED },
  v1_transcript_restore: { summary: "Restore a transcript from the trash", access: "user", errors: [400, ...GUARDED] },
  v1_transcript_destroy: { summary: "Delete a trashed transcript for good", access: "user", errors: [400, ...GUARDED] },
  v1_transcript_process: { summary: "Process the transcript's uploaded audio again", access: "public", errors: [400, ...GUARDED, 409] },
  v1_transcript_runs: { summary: "The transcript's processing runs", access: "public", errors: GUARDED },
  v1_transcript_get_topics: { summary: "The transcript's topics", access: "optional", errors: GUARDED },
  v1_transcript_get_topics_with_words: { summary: "The transcript's topics with their words", access: "optional", errors: GUARDED },
  v1_transcript_get_topics_with_words_per_speaker: { summary: "One topic's words grouped by speaker", access: "optional", errors: GUARDED },
  v1_transcript_get_participants: { summary: "The transcript's participants", access: "optional", errors: GUARDED },
  v1_transcript_add_participant: { summary: "Add a participant", access: "user", errors: [400, ...GUARDED] },
  v1_transcript_get_participant: { summary: "Get a participant", access: "optional", errors: GUARDED },
  v1_transcript_update_participant: { summary: "Update a participant (only the fields sent)", access: "user", errors: [400, ...GUARDED] },
  v1_transcript_delete_participant: { summary: "Remove a participant", access: "user", errors: GUARDED },
  v1_transcript_assign_speaker: { summary: "Assign a speaker to the words in a time range", access: "user", errors: [400, ...GUARDED] },
  v1_transcript_merge_speaker: { summary: "Merge one speaker into another", access: "user", errors: [400, ...GUARDED] },

  v1_transcript_get_audio_mp3: {
    summary: "The transcript's audio as MP3 (ranges supported)",
    access: "optional",
    errors: [...GUARDED, 416],
  },
  v1_transcript_head_audio_mp3: { summary: "Headers of the transcript's MP3 audio", access: "optional", errors: [...GUARDED, 416] },
  v1_transcript_create_audio_token: { summary: "A short-lived token for the transcript's audio link", access: "user" },
  v1_transcript_get_audio_waveform: { summary: "The transcript's audio waveform", access: "user", errors: GUARDED },
  v1_transcript_get_video_url: { summary: "A link to the meeting's cloud video", access: "user", errors: GUARDED },
  v1_transcript_get_video_file: { summary: "The meeting's cloud video file", access: "optional", errors: [...GUARDED, 416] },
  v1_transcript_download_zip: { summary: "Download the transcript, its texts and audio as a ZIP", access: "user", errors: GUARDED },
  v1_transcript_record_upload: {
    summary: "Upload an audio or video file, chunk by chunk",
    access: "public",
    errors: [400, ...GUARDED, 413, 429],
  },
  v1_transcript_record_webrtc: { summary: "Record live audio over WebRTC", access: "public", errors: [400, ...GUARDED] },

  v1_transcript_post_to_zulip: { summary: "Post the transcript to a Zulip stream", access: "user", errors: [400, ...GUARDED, 502] },
  v1_transcript_send_email: { summary: "Send the transcript by e-mail", access: "user", errors: [400, ...GUARDED, 429] },
  v1_zulip_get_streams: { summary: "Zulip streams to post to", access: "optional", errors: [400, 403, 502] },
  v1_zulip_get_topics: { summary: "Topics of a Zulip stream", access: "optional", errors: [400, 403, 502] },

  v1_transcript_get_websocket_events: { summary: "Live events of one transcript (WebSocket)", access: "none" },
  v1_user_get_websocket_events: { summary: "Live events of my transcripts (WebSocket)", access: "none" },
};

const SECURITY_SCHEMES = {
  HTTPBearer: { type: "http", scheme: "bearer", description: "A bearer token: the sign-in's access_token, or the identity provider's JWT" },
  APIKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key", description: "An API key (POST /v1/user/api-keys)" },
} as const;

const SIGNED_IN: Record<string, string[]>[] = [{ HTTPBearer: [] }, { APIKeyHeader: [] }];
/** `{}` last: the operation also serves anonymous callers. */
const SECURITY: Record<Access, Record<string, string[]>[]> = {
  none: [],
  optional: [...SIGNED_IN, {}],
  public: [...SIGNED_IN, {}],
  user: SIGNED_IN,
};

const detailOnly = (description: string) => ({
  description,
  content: {
    "application/json": {
      schema: {
        type: "object",
        properties: { detail: { type: "string", description: "What went wrong, in words" } },
        required: ["detail"],
      },
    },
  },
});

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Refused by a rule of the operation (detail says which)",
  401: "Not signed in where a user is needed, or a credential that does not verify",
  403: "The caller may not see or change this",
  404: "Not found",
  409: "Conflicts with the current state",
  413: "Request body too large",
  416: "Range not satisfiable",
  429: "Too many requests: try again later",
  502: "An upstream service (video platform, Zulip) refused or failed; detail carries its reason",
  503: "Temporarily unavailable: try again",
};

type Operation = {
  operationId?: string;
  summary?: string;
  security?: unknown;
  parameters?: { in: string }[];
  responses?: Record<string, unknown>;
};
interface DescribedDocument {
  paths?: Record<string, Record<string, Operation>>;
  components?: { securitySchemes?: Record<string, unknown> };
}

/**
 * Adds what the reference page and generated clients need from OPERATIONS: the security schemes and
 * each operation's security (so /docs' Authorize sends credentials), its summary and its error
 * responses in their real shape (`{detail: string}`; 422 keeps the FastAPI-style list).
 * `credentialFree` paths read no credentials at all, so a bad one is no 401 there.
 */
export function describeOperations(generated: object, credentialFree: ReadonlySet<string>): void {
  const document = generated as DescribedDocument;
  document.components = { ...document.components, securitySchemes: { ...SECURITY_SCHEMES } };
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      const reference = operation.operationId ? OPERATIONS[operation.operationId] : undefined;
      if (!reference) continue;
      operation.summary ??= reference.summary;
      operation.security = SECURITY[reference.access];
      const codes = new Set(reference.errors ?? []);
      // Every /v1 route but the credential-free ones resolves the caller first: a bad credential is a 401.
      if (reference.access !== "none" || (path.startsWith("/v1/") && !credentialFree.has(path))) codes.add(401);
      if ((operation.parameters ?? []).some((p) => p.in === "path")) codes.add(404);
      const responses = (operation.responses ??= {});
      for (const code of [...codes].sort()) responses[String(code)] ??= detailOnly(ERROR_DESCRIPTIONS[code] ?? "Error");
    }
  }
}
