// Transcript reads end to end: events from the (stand-in) transcription service and the real rooms
// service are folded by the projection and read through the gateway (api.md §2.9–2.12), through the
// typed client (@scribe/client); raw fetch only for the ETag's conditional requests.
import { randomUUID } from "node:crypto";
import { issuesOf, ok, type operations, type Schemas, type ScribeClient } from "@scribe/client";
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answer, onTranscript } from "./support/api";
import { startSystem, type TestSystem } from "./support/system";
import postgres from "postgres";
import { meetingState } from "./support/notifier";
import { TranscriptWriter, topicRecord, word } from "./support/transcripts";

let sys: TestSystem;
let tw: TranscriptWriter;
const api: Record<"alice" | "bob" | "anon", ScribeClient> = {} as never;

beforeAll(async () => {
  sys = await startSystem({ label: "tread", services: ["rooms", "projection", "gateway"], env: { DATABASE_POOL_SIZE: "3" } });
  tw = await TranscriptWriter.connect(sys.prefix);
  api.alice = sys.client("alice");
  api.bob = sys.client("bob");
  api.anon = sys.client(null);
});
afterAll(async () => {
  await tw?.close();
  await sys?.stop();
});

const createRoom = (as: ScribeClient, name: string, extra: Partial<Schemas["CreateRoom"]> = {}) =>
  ok(as.POST("/v1/rooms", { body: { name, ...extra } }));
const read = (as: ScribeClient, id: string) => ok(as.GET("/v1/transcripts/{transcript_id}", onTranscript(id)));
const topicsOf = (as: ScribeClient, id: string) => ok(as.GET("/v1/transcripts/{transcript_id}/topics", onTranscript(id)));
const topicsWithWords = (as: ScribeClient, id: string) => ok(as.GET("/v1/transcripts/{transcript_id}/topics/with-words", onTranscript(id)));

const people = [
  { id: "p1", speaker: 0, name: "John Smith", user_id: null },
  { id: "p2", speaker: 1, name: "Jane Doe", user_id: "jane" },
];

describe("GET /v1/transcripts/{id}", () => {
  let id: string;
  beforeAll(async () => {
    const room = await createRoom(api.alice, "formats-room");
    const t = await tw.create({ user_id: "alice", room_id: room.id, title: "Weekly", participants: people, action_items: null });
    id = t.id;
    await tw.upsertTopic(id, 0, topicRecord([word("Hello", 0, 1), word(" world.", 1, 2)]));
    await tw.upsertTopic(id, 1, topicRecord([word("How", 65, 66, 1), word(" are", 66, 67, 1), word(" you?", 67, 68, 1)]));
    await tw.applied(id);
    await eventually(async () => (await read(api.alice, id)).room_name === "formats-room");
  });

  it("answers the text format by default with participants (email null) and the room's name", async () => {
    const t = await read(api.alice, id);
    expect(t).toMatchObject({
      id,
      user_id: "alice",
      title: "Weekly",
      transcript_format: "text",
      transcript: "John Smith: Hello world.\nJane Doe: How are you?",
      room_name: "formats-room",
      has_cloud_video: false,
      cloud_video_duration: null,
      duration: 60000,
    });
    expect(t.participants).toEqual([
      { id: "p1", speaker: 0, name: "John Smith", user_id: null, email: null },
      { id: "p2", speaker: 1, name: "Jane Doe", user_id: "jane", email: null },
    ]);
    expect(t.created_at).toMatch(/\+00:00$/);
    expect(t.change_seq).toEqual(expect.any(Number));
    expect(t).not.toHaveProperty("deleted_at");
    // Generation failed or has not run: null, not missing (decision).
    expect(t.action_items).toBeNull();
  });

  it("gives a participant linked to a known user that user's e-mail", async () => {
    const db = postgres(sys.db.url, { max: 1, onnotice: () => {} });
    try {
      const now = new Date();
      await db`insert into gateway.users (id, provider_uid, email, email_verified, created_at, updated_at)
        values ('jane', 'idp|jane', 'jane@example.org', true, ${now}, ${now})`;
    } finally {
      await db.end();
    }
    const t = await read(api.alice, id);
    expect(t.participants?.map((p) => p.email)).toEqual([null, "jane@example.org"]);
    // The participant routes answer without e-mails (api.md §2.12).
    expect((await ok(api.alice.GET("/v1/transcripts/{transcript_id}/participants", onTranscript(id))))[1]).not.toHaveProperty(
      "email",
      "jane@example.org",
    );
  });

  it("says whether the transcript's meeting has a composed cloud video, and how long it is", async () => {
    const room = await createRoom(api.alice, "video-room");
    const meetingId = randomUUID();
    const meeting = meetingState(meetingId, { id: room.id, name: room.name, owner: "alice" }, { version: 1 });
    await tw.publish("meeting.created", meeting);
    await tw.publish("meeting.updated", {
      ...meeting,
      version: 2,
      daily_composed_video_s3_key: "daily/video.mp4",
      daily_composed_video_duration: 754,
    });
    // An older state arriving late changes nothing.
    await tw.publish("meeting.updated", { ...meeting, version: 1 });
    const t = await tw.create({ user_id: "alice", room_id: room.id, meeting_id: meetingId });
    await tw.applied(t.id);
    const got = await eventually(async () => {
      const v = await read(api.alice, t.id);
      return v.has_cloud_video ? v : null;
    });
    expect([got.has_cloud_video, got.cloud_video_duration]).toEqual([true, 754]);
    // Lists never compute it (api.md §2.9).
    const list = await ok(api.alice.GET("/v1/transcripts", { params: { query: { room_id: room.id } } }));
    expect(list.items[0]).toMatchObject({ id: t.id, has_cloud_video: false, cloud_video_duration: null });
  });

  it("carries the action items on the single-transcript answer only", async () => {
    const items = {
      decisions: [{ decision: "Move the launch to March", rationale: null, decided_by: "Jane Doe", decided_by_participant_id: "p2" }],
      next_steps: [
        { task: "Send the budget report", assigned_to: "John Smith", assigned_to_participant_id: "p1", deadline: "Friday", context: null },
      ],
    };
    const t = await tw.create({ user_id: "alice", title: "With action items", action_items: items });
    await tw.applied(t.id);
    const got = await ok(
      api.alice.GET("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id: t.id }, query: { transcript_format: "json" } } }),
    );
    expect(got.action_items).toEqual(items);
    const listed = (await ok(api.alice.GET("/v1/transcripts", { params: { query: { size: 100 } } }))).items.find((i) => i.id === t.id);
    expect(listed).not.toHaveProperty("action_items");
  });

  it("renders text-timestamped, webvtt-named and json", async () => {
    const read = (transcript_format: "text-timestamped" | "webvtt-named" | "json") =>
      ok(api.alice.GET("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id: id }, query: { transcript_format } } }));
    expect((await read("text-timestamped")).transcript).toBe("[00:00] John Smith: Hello world.\n[01:05] Jane Doe: How are you?");
    const vtt = await read("webvtt-named");
    expect(vtt.transcript_format).toBe("webvtt-named");
    expect(vtt.transcript).toContain("WEBVTT\n\n00:00:00.000 --> 00:00:02.000\n<v John Smith>Hello world.\n");
    const json = await read("json");
    expect(json.transcript).toEqual([
      { speaker: 0, speaker_name: "John Smith", text: "Hello world.", start: 0, end: 2 },
      { speaker: 1, speaker_name: "Jane Doe", text: "How are you?", start: 65, end: 68 },
    ]);
  });

  it("refuses an unknown format with 422", async () => {
    const res = await api.alice.GET("/v1/transcripts/{transcript_id}", {
      params: { path: { transcript_id: id }, query: { transcript_format: "srt" as never } },
    });
    expect(res.response.status).toBe(422);
    expect(issuesOf(res.error)[0]?.loc).toEqual(["query", "transcript_format"]);
  });

  it("lists participants and reads one, 404 for an unknown one", async () => {
    expect(await ok(api.alice.GET("/v1/transcripts/{transcript_id}/participants", { params: { path: { transcript_id: id } } }))).toEqual([
      { id: "p1", speaker: 0, name: "John Smith" },
      { id: "p2", speaker: 1, name: "Jane Doe" },
    ]);
    const one = (participant_id: string) =>
      api.alice.GET("/v1/transcripts/{transcript_id}/participants/{participant_id}", {
        params: { path: { transcript_id: id, participant_id } },
      });
    expect(await ok(one("p2"))).toEqual({ id: "p2", speaker: 1, name: "Jane Doe" });
    const missing = await one("nope");
    expect([missing.response.status, missing.error]).toEqual([404, { detail: "Participant not found" }]);
  });
});

describe("topics", () => {
  const interleaved = [word("Hello ", 0, 0.5, 0), word("I'm ", 0.5, 0.8, 1), word("there.", 0.5, 1, 0), word("good.", 1, 1.5, 1)];
  let multi: string;
  let single: string;
  let topicId: string;
  beforeAll(async () => {
    const recordingId = randomUUID();
    await tw.publish("recording.ready", {
      recording_id: recordingId,
      kind: "multitrack",
      source: "platform",
      bucket: "b",
      tracks: [
        { key: "t1.webm", start_offset_seconds: 0, participant_id: "a", participant_name: "Alice", user_id: null, size: 1 },
        { key: "t2.webm", start_offset_seconds: 0, participant_id: "b", participant_name: "Bob", user_id: null, size: 1 },
      ],
      file: null,
      transcript_id: null,
      meeting_id: null,
      room_id: null,
      room_name: null,
      owner_user_id: null,
      platform: "daily",
      recorded_at: new Date().toISOString(),
      duration_seconds: null,
      participants: [],
    });
    multi = (await tw.create({ recording_id: recordingId, share_mode: "public" })).id;
    single = (await tw.create({ share_mode: "public" })).id;
    const topic = topicRecord(interleaved);
    topicId = topic.id;
    await tw.upsertTopic(multi, 0, topic);
    await tw.upsertTopic(single, 0, topicRecord(interleaved));
    await tw.applied(multi);
    await tw.applied(single);
  });

  it("segments a multitrack recording's topic by sentence and a single-track one by speaker change", async () => {
    const [m] = await eventually(async () => {
      const topics = await topicsOf(api.anon, multi);
      return topics[0]?.segments.length === 2 ? topics : null;
    });
    expect(m!.segments.map((s) => s.text)).toEqual(["Hello there.", "I'm good."]);
    expect(m).toMatchObject({ id: topicId, transcript: "Hello I'm there.good.", duration: 1.5 });
    const [s] = await topicsOf(api.anon, single);
    expect(s!.segments).toHaveLength(4);
  });

  it("adds the words with /with-words and runs of speakers with /words-per-speaker", async () => {
    const [t] = await topicsWithWords(api.anon, multi);
    expect(t!.segments).toHaveLength(2);
    expect(t!.words).toHaveLength(4);
    const perSpeaker = (topic_id: string) =>
      api.anon.GET("/v1/transcripts/{transcript_id}/topics/{topic_id}/words-per-speaker", {
        params: { path: { transcript_id: multi, topic_id } },
      });
    const per = await ok(perSpeaker(topicId));
    expect(per.words_per_speaker.map((r) => [r.speaker, r.words.length])).toEqual([
      [0, 1],
      [1, 1],
      [0, 1],
      [1, 1],
    ]);
    expect(await answer(perSpeaker("nope"))).toEqual({ status: 404, body: { detail: "Topic not found" } });
  });

  it("replaces a topic at its position and starts over after a clear", async () => {
    const id = (await tw.create({ share_mode: "public" })).id;
    await tw.upsertTopic(id, 0, topicRecord([word("one", 0, 1)], { title: "First" }));
    await tw.upsertTopic(id, 1, topicRecord([word("two", 1, 2)], { title: "Second" }));
    await tw.upsertTopic(id, 0, topicRecord([word("uno", 0, 1)], { title: "First again" }));
    await tw.applied(id);
    expect((await topicsOf(api.anon, id)).map((t) => t.title)).toEqual(["First again", "Second"]);
    // The words as read before the change (the projection keeps that answer), then after it.
    const wordsOf = async () => (await topicsWithWords(api.anon, id)).map((t) => t.words.map((w) => w.text));
    expect(await wordsOf()).toEqual([["uno"], ["two"]]);
    await tw.clearTopics(id);
    await tw.upsertTopic(id, 0, topicRecord([word("fresh", 0, 1)], { title: "Fresh" }));
    await tw.applied(id);
    expect((await topicsOf(api.anon, id)).map((t) => t.title)).toEqual(["Fresh"]);
    expect(await wordsOf()).toEqual([["fresh"]]);
  });
});

describe("who may read a transcript", () => {
  it("applies READ: owner, share modes, ownerless, deleted and unknown transcripts", async () => {
    const priv = await tw.create({ user_id: "alice", share_mode: "private" });
    const semi = await tw.create({ user_id: "alice", share_mode: "semi-private" });
    const pub = await tw.create({ user_id: "alice", share_mode: "public" });
    const ownerless = await tw.create({ user_id: null, share_mode: "private" });
    const deleted = await tw.create({ user_id: "alice", share_mode: "public" });
    await tw.update(deleted.id, { deleted_at: new Date().toISOString() });
    for (const t of [priv, semi, pub, ownerless, deleted]) await tw.applied(t.id);

    const status = async (pending: Promise<{ response: Response }>) => (await pending).response.status;
    const get = (as: ScribeClient, id: string) => as.GET("/v1/transcripts/{transcript_id}", onTranscript(id));
    await read(api.alice, priv.id);
    expect(await answer(get(api.bob, priv.id))).toEqual({ status: 403, body: { detail: "Transcript access denied" } });
    expect(await status(api.anon.GET("/v1/transcripts/{transcript_id}/topics", onTranscript(priv.id)))).toBe(403);
    await read(api.bob, semi.id);
    expect(await status(get(api.anon, semi.id))).toBe(403);
    await read(api.anon, pub.id);
    await read(api.anon, ownerless.id);
    await ok(api.bob.GET("/v1/transcripts/{transcript_id}/participants", onTranscript(ownerless.id)));
    expect(await answer(get(api.alice, deleted.id))).toEqual({ status: 404, body: { detail: "Transcript not found" } });
    expect(await answer(get(api.alice, randomUUID()))).toEqual({ status: 404, body: { detail: "Transcript not found" } });
  });
});

describe("GET /v1/transcripts", () => {
  let shared: { id: string };
  let mine: { id: string };
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    mine = await createRoom(api.alice, "list-alice");
    shared = await createRoom(api.bob, "list-shared", { is_shared: true });
    const t = async (key: string, o: Parameters<TranscriptWriter["create"]>[0], createdAt: string) => {
      ids[key] = (await tw.create({ ...o, created_at: createdAt, updated_at: createdAt })).id;
      await tw.applied(ids[key]!);
    };
    await t("a1", { user_id: "lister", title: "Alpha planning", room_id: mine.id, source_kind: "room" }, "2026-01-01T10:00:00.000Z");
    await t("a2", { user_id: "lister", title: "Beta review", source_kind: "file" }, "2026-01-02T10:00:00.000Z");
    await t("a3", { user_id: "lister", title: "100%_done", source_kind: "live" }, "2026-01-03T10:00:00.000Z");
    await t("b1", { user_id: "bob", title: "Bob in shared room", room_id: shared.id }, "2026-01-04T10:00:00.000Z");
    await t("b2", { user_id: "bob", title: "Bob private", share_mode: "public" }, "2026-01-05T10:00:00.000Z");
    await eventually(async () => {
      const page = await ok(sys.client("lister").GET("/v1/transcripts"));
      return page.items.find((i) => i.id === ids.b1)?.room_name === "list-shared";
    });
  });
  type ListQuery = NonNullable<operations["v1_transcripts_list"]["parameters"]["query"]>;
  const list = (as: ScribeClient, query: ListQuery = {}) => ok(as.GET("/v1/transcripts", { params: { query } }));
  const refused = async (query: Record<string, string>) =>
    (await sys.client("lister").GET("/v1/transcripts", { params: { query: query as ListQuery } })).response.status;
  const lister = () => sys.client("lister");
  const itemIds = (page: { items: { id: string }[] }) => page.items.map((i) => i.id);

  it("lists the caller's own transcripts and those of shared rooms, newest first, without heavy fields", async () => {
    const page = await list(lister());
    expect(itemIds(page)).toEqual([ids.b1, ids.a3, ids.a2, ids.a1]);
    expect(page).toMatchObject({ total: 4, page: 1, size: 50, pages: 1 });
    const item = page.items.find((i) => i.id === ids.a1);
    expect(item).toMatchObject({ room_name: "list-alice", has_cloud_video: false, cloud_video_duration: null, title: "Alpha planning" });
    for (const key of ["participants", "topics", "action_items", "transcript", "deleted_at"]) expect(item).not.toHaveProperty(key);
  });

  it("filters by room, source kind and a literal title substring", async () => {
    expect(itemIds(await list(lister(), { room_id: mine.id }))).toEqual([ids.a1]);
    expect(itemIds(await list(lister(), { source_kind: "file" }))).toEqual([ids.a2]);
    expect(itemIds(await list(lister(), { search_term: "ALPHA" }))).toEqual([ids.a1]);
    expect(itemIds(await list(lister(), { search_term: "0%_" }))).toEqual([ids.a3]);
    expect(itemIds(await list(lister(), { search_term: "%" }))).toEqual([ids.a3]);
    expect(await refused({ source_kind: "zoom" })).toBe(422);
    expect(await refused({ sort_by: "title" })).toBe(422);
  });

  it("pages with page and size", async () => {
    const p1 = await list(lister(), { size: 3 });
    const p2 = await list(lister(), { size: 3, page: 2 });
    expect(p1).toMatchObject({ total: 4, size: 3, pages: 2, page: 1 });
    expect(itemIds(p1)).toEqual([ids.b1, ids.a3, ids.a2]);
    expect(itemIds(p2)).toEqual([ids.a1]);
    expect(await refused({ size: "101" })).toBe(422);
    expect(await refused({ page: "0" })).toBe(422);
  });

  it("does not list another user's transcript outside a shared room, whatever its share mode", async () => {
    expect(itemIds(await list(lister()))).not.toContain(ids.b2);
    expect(itemIds(await list(sys.client("bob")))).toEqual(expect.arrayContaining([ids.b1, ids.b2]));
  });

  it("answers 401 to anonymous callers outside PUBLIC_MODE", async () => {
    const { error, response } = await sys.client(null).GET("/v1/transcripts");
    expect([response.status, error]).toEqual([401, { detail: "Not authenticated" }]);
  });

  it("serves the change feed by change_seq, deletions included with deleted_at", async () => {
    const feedOf = async (from: number) => (await list(lister(), { sort_by: "change_seq", change_seq_from: from, size: 100 })).items;
    // Every row has a sequence (the contract types it nullable).
    const seqOf = (item?: { change_seq?: number | null }) => item!.change_seq!;
    const all = await feedOf(0);
    const seqs = all.map(seqOf);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(all.every((i) => i.deleted_at === null)).toBe(true);
    const checkpoint = Math.max(...seqs);
    expect(await feedOf(checkpoint)).toEqual([]);

    await tw.update(ids.a2!, { deleted_at: "2026-02-01T00:00:00.000Z" });
    await tw.applied(ids.a2!);
    const [deleted] = await feedOf(checkpoint);
    expect(deleted).toMatchObject({ id: ids.a2, deleted_at: "2026-02-01T00:00:00+00:00" });
    expect(itemIds(await list(lister()))).not.toContain(ids.a2);

    await tw.destroy(ids.a2!);
    await tw.applied(ids.a2!);
    const [destroyed] = await feedOf(seqOf(deleted));
    expect(destroyed).toMatchObject({ id: ids.a2, title: null, deleted_at: "2026-02-01T00:00:00+00:00" });
    expect(seqOf(destroyed)).toBeGreaterThan(seqOf(deleted));
    expect((await lister().GET("/v1/transcripts/{transcript_id}", onTranscript(ids.a2!))).response.status).toBe(404);
  });
});

describe("events applied twice or out of order", () => {
  it("ignores a redelivered event and a stale state", async () => {
    const t = await tw.create({ share_mode: "public", title: "v1" });
    const v2 = await tw.update(t.id, { title: "v2" });
    await tw.update(t.id, { title: "v3" });
    await tw.applied(t.id);
    const before = await read(api.anon, t.id);
    // An old state under a new event id (a re-driven stream, a late retry) is stale: no change.
    await tw.publish("transcript.updated", { ...v2, title: "stale" });
    // The very same event again (same event id, past JetStream's duplicate window) is dropped by the
    // inbox, even though its content would apply (it is newer than what the model holds).
    const eventId = randomUUID();
    const v4 = await tw.update(t.id, { title: "v4" }, { eventId });
    await tw.publish("transcript.updated", { ...v4, version: 5, title: "twice" }, { id: eventId, msgId: randomUUID() });
    await tw.update(t.id, { name: "marker" });
    await tw.applied(t.id);
    const after = await read(api.anon, t.id);
    expect(after).toMatchObject({ title: "v4", name: "marker" });
    expect(after.change_seq!).toBeGreaterThan(before.change_seq!);
  });

  it("converges when a topic arrives after a later clear (per-position versions behind the clear)", async () => {
    const t = await tw.create({ share_mode: "public" });
    const old = topicRecord([word("old", 0, 1)], { title: "Old" });
    const oldVersion = await tw.upsertTopic(t.id, 0, old);
    await tw.clearTopics(t.id);
    await tw.upsertTopic(t.id, 0, topicRecord([word("new", 0, 1)], { title: "New" }));
    await tw.applied(t.id);
    // The old upsert delivered again late: behind the clear, so ignored.
    await tw.publish("transcript.topic.upserted", { transcript_id: t.id, version: oldVersion, position: 0, topic: old });
    await tw.publish("transcript.topic.upserted", { transcript_id: t.id, version: oldVersion, position: 3, topic: old });
    await tw.update(t.id, { name: "after" });
    await tw.applied(t.id);
    expect((await topicsOf(api.anon, t.id)).map((x) => x.title)).toEqual(["New"]);
  });
});

describe("GET /v1/transcripts/{id}: ETag and If-None-Match", () => {
  // Raw requests: If-None-Match is a header the typed client does not send, and a 304 has no body to type.
  const get = (as: string | null, id: string, etag?: string, format = "text") =>
    sys.as(as)(`/v1/transcripts/${id}?transcript_format=${format}`, etag ? { headers: { "If-None-Match": etag } } : {});

  it("answers 304 with the same ETag while the transcript is unchanged, and a new ETag once it changes", async () => {
    const t = await tw.create({ user_id: "alice", title: "Tagged", share_mode: "private" });
    await tw.applied(t.id);
    const first = await get("alice", t.id);
    const etag = first.headers.get("etag")!;
    expect(first.status).toBe(200);
    expect(etag).toMatch(/^".+"$/);
    const again = await get("alice", t.id, etag);
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe("");
    // Another format is another representation, with its own tag.
    expect((await get("alice", t.id, etag, "json")).status).toBe(200);

    await tw.update(t.id, { title: "Tagged again" });
    await tw.applied(t.id);
    const changed = await get("alice", t.id, etag);
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(((await changed.json()) as { title: string }).title).toBe("Tagged again");
  });

  it("never answers 304 to a caller who may not read the transcript, whatever tag it sends", async () => {
    const t = await tw.create({ user_id: "alice", title: "Private", share_mode: "private" });
    await tw.applied(t.id);
    const etag = (await get("alice", t.id)).headers.get("etag")!;
    expect((await get("bob", t.id, etag)).status).toBe(403);
    expect([401, 403, 404]).toContain((await get(null, t.id, etag)).status);
    expect((await get("bob", t.id, "*")).status).toBe(403);
    await tw.update(t.id, { deleted_at: new Date().toISOString() });
    await tw.applied(t.id);
    expect((await get("alice", t.id, etag)).status).toBe(404);
  });

  it("changes the ETag when a participant's e-mail, added by the gateway, changes", async () => {
    const t = await tw.create({ user_id: "alice", title: "People", participants: [{ id: "q1", speaker: 0, name: "Kim", user_id: "kim" }] });
    await tw.applied(t.id);
    const before = (await get("alice", t.id)).headers.get("etag")!;
    const db = postgres(sys.db.url, { max: 1, onnotice: () => {} });
    try {
      await db`insert into gateway.users (id, provider_uid, email, email_verified, created_at, updated_at)
        values ('kim', 'idp|kim', 'kim@example.org', true, now(), now())`;
    } finally {
      await db.end();
    }
    const after = await get("alice", t.id, before);
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(before);
    expect(((await after.json()) as { participants: { email: string | null }[] }).participants[0]!.email).toBe("kim@example.org");
    expect((await get("alice", t.id, after.headers.get("etag")!)).status).toBe(304);
  });
});
