// Helpers for notifier tests: the running notifier's hooks (deliveries driven with the test's clock),
// its tables, and transcripts completing as the transcription service announces them.
import type { MeetingState, TranscriptState } from "@scribe/contracts";
import { connectDb, type Sql } from "@scribe/kit";
import { eventually } from "@scribe/kit/testing";
import { attemptsOf, listDeliveries, type AttemptRecord, type DeliveryRow } from "@scribe/notifier/testing";
import { consumerCaughtUp, publish, transcriptState } from "./media";
import type { TestSystem } from "./system";

export type DeliverDue = (opts?: { now?: Date }) => Promise<number>;

export function notifierHooks(sys: TestSystem): { deliverDue: DeliverDue } {
  // The newest one: a test may have restarted the notifier.
  const svc = [...sys.process.services].reverse().find((s) => s.name === "notifier");
  if (!svc) throw new Error("the notifier is not running in this system");
  return { deliverDue: svc.exports.deliverDue as DeliverDue };
}

export function notifierDb(sys: TestSystem): Sql {
  return connectDb(sys.db.url, { schema: "notifier", max: 2, applicationName: "notifier-test" });
}

/**
 * The notifier has applied every event of a stream its consumers read (rooms, meetings, transcripts),
 * including those still in a service's outbox: an HTTP change answers at commit, before the relay
 * publishes its event, and a consumer with nothing pending then is not caught up with it.
 */
export async function notifierCaughtUp(sys: TestSystem, stream: "ROOMS" | "MEETINGS" | "TRANSCRIPTS"): Promise<void> {
  const name = { ROOMS: "notifier.rooms", MEETINGS: "notifier.meetings", TRANSCRIPTS: "notifier.transcripts" }[stream];
  await outboxesDrained(sys);
  await eventually(() => consumerCaughtUp(sys.prefix, stream, name), { message: `${name} caught up` });
}

/** Every service's outbox is empty: all committed events are on the bus. */
export async function outboxesDrained(sys: TestSystem): Promise<void> {
  const db = connectDb(sys.db.url, { schema: "public", max: 1, applicationName: "outbox-check" });
  try {
    const schemas = (
      await db<{ schema: string }[]>`select table_schema as schema from information_schema.tables where table_name = 'outbox'`
    ).map((r) => r.schema);
    await eventually(
      async () => {
        for (const schema of schemas) {
          const [row] = await db<{ n: number }[]>`select count(*)::int as n from ${db(schema)}.outbox`;
          if (row!.n > 0) return false;
        }
        return true;
      },
      { message: "every outbox published" },
    );
  } finally {
    await db.end({ timeout: 1 });
  }
}

export const COMPLETED_TOPICS = [
  {
    id: "topic-1",
    title: "Introductions",
    summary: "Everyone said hello.",
    timestamp: 0,
    duration: 12.5,
    webvtt: "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\n<v Speaker0>Hello everyone.\n",
  },
  { id: "topic-2", title: "Roadmap", summary: "The plan for the quarter.", timestamp: 65.2, duration: null, webvtt: "" },
];

/** A room transcript that ended, as `transcript.completed` carries it. */
export function endedTranscript(id: string, overrides: Partial<TranscriptState> = {}): TranscriptState {
  return transcriptState(id, {
    status: "ended",
    title: "Weekly Standup",
    short_summary: "The team met.",
    long_summary: "The team met and planned the quarter.",
    duration: 754_000,
    source_kind: "room",
    share_mode: "semi-private",
    participants: [{ id: "p-1", speaker: 0, name: "Alice", user_id: null }],
    webvtt: "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\n<v Speaker0>Hello everyone.\n",
    version: 5,
    ...overrides,
  });
}

export async function publishCompleted(sys: TestSystem, state: TranscriptState, runId: string, topics = COMPLETED_TOPICS): Promise<string> {
  return publish(sys.prefix, "transcript.completed", { transcript: state, topics, run_id: runId, completed_at: new Date().toISOString() });
}

/** The transcript is destroyed (after a soft delete by its owner, or by retention). */
export async function publishDestroyed(sys: TestSystem, state: TranscriptState, reason: "user" | "retention"): Promise<string> {
  return publish(sys.prefix, "transcript.destroyed", { transcript: state, reason });
}

/** The deliveries of a transcript once the completion consumer has created `count` of them. */
export async function deliveriesOf(
  db: Sql,
  transcriptId: string,
  count = 1,
  channel: DeliveryRow["channel"] = "webhook",
): Promise<DeliveryRow[]> {
  return eventually(
    async () => {
      const rows = (await listDeliveries(db, { transcriptId, channel, limit: 100 })).reverse();
      return rows.length >= count ? rows : null;
    },
    { message: `${count} ${channel} deliveries of ${transcriptId}` },
  );
}

export async function deliveryNow(db: Sql, id: string): Promise<DeliveryRow> {
  const [d] = await db<DeliveryRow[]>`select * from delivery where id = ${id}`;
  if (!d) throw new Error(`no delivery ${id}`);
  return d;
}

export function attempts(db: Sql, id: string): Promise<AttemptRecord[]> {
  return attemptsOf(db, id);
}

/** Words of a short exchange: Alice then Bob (participants name the speakers). */
export const EXCHANGE = [
  { text: " Hello", start: 0, end: 0.5, speaker: 0 },
  { text: " everyone.", start: 0.5, end: 1.2, speaker: 0 },
  { text: " Hi", start: 5.1, end: 5.4, speaker: 1 },
  { text: " Alice.", start: 5.4, end: 6.0, speaker: 1 },
];

/**
 * A transcript as the transcription service would publish it from start to end: created, its topics
 * (with words, for the read model's text), then completed. Resolves once the read model has it
 * (when the projection runs in the system).
 */
export async function publishWholeTranscript(sys: TestSystem, state: TranscriptState, runId = "run-1"): Promise<void> {
  await publish(sys.prefix, "transcript.created", { ...state, version: 1, status: "processing" });
  await publish(sys.prefix, "transcript.topic.upserted", {
    transcript_id: state.id,
    version: 2,
    position: 0,
    topic: {
      id: "topic-1",
      title: "Introductions",
      summary: "Everyone said hello.",
      timestamp: 0,
      duration: 6,
      transcript: null,
      words: EXCHANGE,
    },
  });
  await publishCompleted(
    sys,
    {
      ...state,
      participants: [
        { id: "p-1", speaker: 0, name: "Alice", user_id: null },
        { id: "p-2", speaker: 1, name: "Bob", user_id: null },
      ],
    },
    runId,
    [{ id: "topic-1", title: "Introductions", summary: "Everyone said hello.", timestamp: 0, duration: 6, webvtt: "WEBVTT\n" }],
  );
  // Sending reads the read model: let it hold the completed version first (no retry delay in tests).
  if (sys.process.services.some((s) => s.name === "projection")) {
    await eventually(() => consumerCaughtUp(sys.prefix, "TRANSCRIPTS", "projection.transcripts"), { message: "read model caught up" });
  }
}

/** A meeting of a room as the meetings service announces it. */
export function meetingState(
  id: string,
  room: { id: string; name: string; owner: string },
  overrides: Partial<MeetingState> = {},
): MeetingState {
  const now = new Date().toISOString();
  return {
    id,
    room_name: `${room.name}-20261121100000`,
    room_url: `https://scribe.daily.co/${room.name}`,
    host_room_url: "",
    start_date: now,
    end_date: new Date(Date.now() + 3_600_000).toISOString(),
    user_id: null,
    room_id: room.id,
    is_locked: false,
    room_mode: "normal",
    recording_type: "cloud",
    recording_trigger: "automatic-2nd-participant",
    num_clients: 0,
    is_active: true,
    calendar_event_id: null,
    calendar_metadata: null,
    platform: "daily",
    daily_composed_video_s3_key: null,
    daily_composed_video_duration: null,
    store_video: false,
    version: 1,
    created_at: now,
    updated_at: now,
    scribe_room_name: room.name,
    room_owner_id: room.owner,
    email_recipients: [],
    deactivated_at: null,
    deactivation_reason: null,
    ...overrides,
  };
}
