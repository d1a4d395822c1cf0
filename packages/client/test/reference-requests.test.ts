// Issue 21's done-when: a client generated with openapi-typescript from Scribe's OpenAPI accepts every
// request body the reference's generated client can send. The Reference* types are api.md's request
// components as that client types them (every field api.md marks optional or nullable, as such); the
// checks are type-level, so `pnpm typecheck` (the first step of `pnpm test`) fails when a body is refused.
import { describe, expectTypeOf, it } from "vitest";
import type { paths } from "../src/schema";

type JsonBody<Path extends keyof paths, Method extends keyof paths[Path]> = paths[Path][Method] extends {
  requestBody?: { content: { "application/json": infer Body } };
}
  ? Body
  : never;

type SourceKind = "room" | "live" | "file";
type ShareMode = "public" | "semi-private" | "private";
type Platform = "whereby" | "daily" | "livekit";

interface ReferenceCreateRoom {
  name: string;
  zulip_auto_post: boolean;
  zulip_stream: string;
  zulip_topic: string;
  is_locked: boolean;
  room_mode: string;
  recording_type: string;
  recording_trigger: string;
  is_shared: boolean;
  webhook_url: string;
  webhook_secret: string;
  ics_url?: string | null;
  ics_fetch_interval?: number;
  ics_enabled?: boolean;
  platform: Platform;
  skip_consent?: boolean;
  email_transcript_to?: string | null;
  store_video?: boolean;
}
type Nullable<T> = { [K in keyof T]?: T[K] | null };
type ReferenceUpdateRoom = Nullable<Omit<ReferenceCreateRoom, "platform"> & { platform: Platform }>;

interface ReferenceTranscriptParticipant {
  id?: string;
  speaker: number | null;
  name: string;
  user_id?: string | null;
}
interface ReferenceUpdateTranscript {
  name?: string | null;
  locked?: boolean | null;
  title?: string | null;
  short_summary?: string | null;
  long_summary?: string | null;
  share_mode?: ShareMode | null;
  participants?: ReferenceTranscriptParticipant[] | null;
  reviewed?: boolean | null;
  audio_deleted?: boolean | null;
}
interface ReferenceCreateTranscript {
  name: string;
  source_language?: string;
  target_language?: string;
  source_kind?: SourceKind | null;
}

describe("request bodies the reference's generated client sends", () => {
  it("rooms: create (what its Add Room form sends, feed left empty) and update", () => {
    expectTypeOf<ReferenceCreateRoom>().toExtend<JsonBody<"/v1/rooms", "post">>();
    expectTypeOf<ReferenceUpdateRoom>().toExtend<JsonBody<"/v1/rooms/{room_id}", "patch">>();
    const addRoomForm = {
      name: "standup",
      zulip_auto_post: false,
      zulip_stream: "",
      zulip_topic: "",
      is_locked: false,
      room_mode: "normal",
      recording_type: "cloud",
      recording_trigger: "automatic-2nd-participant",
      is_shared: false,
      webhook_url: "",
      webhook_secret: "",
      ics_url: "",
      ics_fetch_interval: 5,
      ics_enabled: false,
      platform: "whereby",
      skip_consent: false,
      email_transcript_to: null,
      store_video: false,
    } as const;
    expectTypeOf(addRoomForm).toExtend<JsonBody<"/v1/rooms", "post">>();
  });

  it("transcripts: create and update (nullable fields, participants)", () => {
    expectTypeOf<ReferenceCreateTranscript>().toExtend<JsonBody<"/v1/transcripts", "post">>();
    expectTypeOf<ReferenceUpdateTranscript>().toExtend<JsonBody<"/v1/transcripts/{transcript_id}", "patch">>();
  });

  it("participants and speakers", () => {
    expectTypeOf<{ speaker?: number | null; name: string }>().toExtend<JsonBody<"/v1/transcripts/{transcript_id}/participants", "post">>();
    expectTypeOf<{ speaker?: number | null; name?: string | null }>().toExtend<
      JsonBody<"/v1/transcripts/{transcript_id}/participants/{participant_id}", "patch">
    >();
    expectTypeOf<{ speaker?: number | null; participant?: string | null; timestamp_from: number; timestamp_to: number }>().toExtend<
      JsonBody<"/v1/transcripts/{transcript_id}/speaker/assign", "patch">
    >();
    expectTypeOf<{ speaker_from: number; speaker_to: number }>().toExtend<
      JsonBody<"/v1/transcripts/{transcript_id}/speaker/merge", "patch">
    >();
  });

  it("meetings, sign-in, API keys, sharing", () => {
    expectTypeOf<{ allow_duplicated?: boolean | null }>().toExtend<JsonBody<"/v1/rooms/{room_name}/meeting", "post">>();
    expectTypeOf<{ consent_given: boolean }>().toExtend<JsonBody<"/v1/meetings/{meeting_id}/consent", "post">>();
    expectTypeOf<{ type: "cloud" | "raw-tracks"; instanceId: string }>().toExtend<
      JsonBody<"/v1/meetings/{meeting_id}/recordings/start", "post">
    >();
    expectTypeOf<{ email: string }>().toExtend<JsonBody<"/v1/meetings/{meeting_id}/email-recipient", "post">>();
    expectTypeOf<{ email: string; password: string }>().toExtend<JsonBody<"/v1/auth/login", "post">>();
    expectTypeOf<{ name?: string | null }>().toExtend<JsonBody<"/v1/user/api-keys", "post">>();
    expectTypeOf<{ email: string }>().toExtend<JsonBody<"/v1/transcripts/{transcript_id}/email", "post">>();
  });
});
