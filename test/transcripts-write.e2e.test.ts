// Transcript mutations end to end (api.md §2.9–2.13): the transcription service decides and emits,
// the projection folds, the gateway answers after the read model holds the change. Creating, patching
// Every call goes through the typed client (@scribe/client); bodies the contract refuses through a cast.
import { randomUUID } from "node:crypto";
import { issuesOf, ok, type ScribeClient, type Schemas } from "@scribe/client";
import type { TopicRecord } from "@scribe/contracts";
import { connectDb, createLogger, type Sql } from "@scribe/kit";
import { DbTranscriptPort } from "../services/transcription/src/port";
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answer, onTranscript } from "./support/api";
import { startSystem, streamEvents, type TestSystem } from "./support/system";
import { transcriptionHooks } from "./support/transcription";
import { TranscriptWriter } from "./support/transcripts";

let sys: TestSystem;
const api: Record<"alice" | "bob" | "anon", ScribeClient> = {} as never;
let sql: Sql;
let bus: TranscriptWriter;

beforeAll(async () => {
  sys = await startSystem({ label: "twrite", services: ["rooms", "projection", "transcription", "gateway"] });
  api.alice = sys.client("alice");
  api.bob = sys.client("bob");
  api.anon = sys.client(null);
  sql = connectDb(sys.db.url, { schema: "transcription", max: 2 });
  bus = await TranscriptWriter.connect(sys.prefix);
});
afterAll(async () => {
  await bus?.close();
  await sql?.end({ timeout: 5 });
  await sys?.stop();
});

const create = (as: ScribeClient) => ok(as.POST("/v1/transcripts", { body: { name: "Standup" } }));
/** A body the contract refuses (a missing or mistyped field), sent through the typed client all the same. */
const refusedBody = (body: Record<string, unknown>) => body as never;

const transcriptOf = (e: { data: Record<string, unknown> }) =>
  e.data.transcript_id ?? (e.data.transcript as { id?: string } | undefined)?.id;

describe("POST /v1/transcripts", () => {
  const transcript = (transcript_id: string) => ({ params: { path: { transcript_id } } });

  it("creates an idle, private, live transcript owned by the caller, readable at once", async () => {
    const t = await ok(api.alice.POST("/v1/transcripts", { body: { name: "Standup" } }));
    expect(t).toMatchObject({
      name: "Standup",
      status: "idle",
      locked: false,
      duration: 0,
      share_mode: "private",
      source_kind: "live",
      source_language: "en",
      target_language: "en",
      user_id: "alice",
      participants: [],
      room_name: null,
    });
    expect(t).not.toHaveProperty("topics");
    expect(t).not.toHaveProperty("events");
    expect(await ok(api.alice.GET("/v1/transcripts/{transcript_id}", transcript(t.id)))).toMatchObject({
      id: t.id,
      name: "Standup",
      status: "idle",
    });
    const list = await ok(api.alice.GET("/v1/transcripts"));
    expect(list.items.map((i) => i.id)).toContain(t.id);
  });

  it("takes the languages and source kind given, and source_kind null as live", async () => {
    const t = await ok(
      api.alice.POST("/v1/transcripts", { body: { name: "x", source_language: "fr", target_language: "de", source_kind: "file" } }),
    );
    expect(t).toMatchObject({ source_language: "fr", target_language: "de", source_kind: "file" });
    expect(await ok(api.alice.POST("/v1/transcripts", { body: { name: "x", source_kind: null } }))).toMatchObject({ source_kind: "live" });
  });

  it("needs a signed-in caller outside PUBLIC_MODE, and a name", async () => {
    expect((await api.anon.POST("/v1/transcripts", { body: { name: "x" } })).response.status).toBe(401);
    const res = await answer(api.alice.POST("/v1/transcripts", { body: refusedBody({}) }));
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain("name");
  });
});

describe("PATCH /v1/transcripts/{id}", () => {
  const patch = (as: ScribeClient, transcript_id: string, body: Schemas["UpdateTranscript"]) =>
    as.PATCH("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id } }, body });

  it("writes exactly the fields given and answers the updated transcript", async () => {
    const t = await create(api.alice);
    const patched = await ok(
      patch(api.alice, t.id, { name: "Renamed", locked: true, title: "Weekly", short_summary: "s", long_summary: "l", reviewed: true }),
    );
    expect(patched).toMatchObject({
      id: t.id,
      name: "Renamed",
      locked: true,
      title: "Weekly",
      short_summary: "s",
      long_summary: "l",
      reviewed: true,
      share_mode: "private",
    });
    expect(await ok(api.alice.GET("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id: t.id } } }))).toMatchObject({
      name: "Renamed",
      locked: true,
      title: "Weekly",
      reviewed: true,
    });
    const cleared = await ok(patch(api.alice, t.id, { title: null }));
    expect(cleared).toMatchObject({ title: null, name: "Renamed" });
  });

  it("gives participants sent without an id a stable id", async () => {
    const t = await create(api.alice);
    const patched = await ok(patch(api.alice, t.id, { participants: [{ name: "Ann", speaker: 0 }] }));
    const pid = patched.participants?.[0]?.id;
    expect(pid).toEqual(expect.any(String));
    const read = await ok(api.alice.GET("/v1/transcripts/{transcript_id}/participants", { params: { path: { transcript_id: t.id } } }));
    expect(read).toEqual([{ id: pid, name: "Ann", speaker: 0 }]);
  });

  it("links a participant only to the caller, never to another user whose e-mail it would reveal", async () => {
    const now = new Date();
    await sql`insert into gateway.users (id, provider_uid, email, email_verified, created_at, updated_at)
      values ('victim', 'idp|victim', 'victim@example.org', true, ${now}, ${now}) on conflict do nothing`;
    const t = await create(api.alice);
    const res = await patch(api.alice, t.id, {
      participants: [
        { name: "Me", speaker: 0, user_id: "alice" },
        { name: "V", speaker: 1, user_id: "victim" },
      ],
    });
    expect(res.response.status).toBe(422);
    expect(issuesOf(res.error)).toEqual([expect.objectContaining({ loc: ["body", "participants", 1, "user_id"] })]);
    const read = await ok(api.alice.GET("/v1/transcripts/{transcript_id}", onTranscript(t.id)));
    expect(JSON.stringify(read)).not.toContain("victim@example.org");
    const linked = await ok(patch(api.alice, t.id, { participants: [{ name: "Me", speaker: 0, user_id: "alice" }] }));
    expect(linked.participants).toEqual([expect.objectContaining({ name: "Me", user_id: "alice" })]);
  });

  it("takes null on a field that cannot be null as unchanged (the reference's client types them nullable)", async () => {
    const t = await create(api.alice);
    await ok(patch(api.alice, t.id, { name: "Kept", locked: true, share_mode: "public", reviewed: true }));
    const patched = await ok(patch(api.alice, t.id, { name: null, locked: null, share_mode: null, reviewed: null, title: "Set" }));
    expect(patched).toMatchObject({ name: "Kept", locked: true, share_mode: "public", reviewed: true, title: "Set" });
    const wrongType = await answer(patch(api.alice, t.id, refusedBody({ name: 42 })));
    expect(wrongType.status).toBe(422);
    expect(JSON.stringify(wrongType.body)).toContain("name");
  });

  it("is the owner's: 401 anonymous, 403 for a reader who is not the owner, 404 unknown", async () => {
    const t = await create(api.alice);
    expect((await patch(api.anon, t.id, { name: "x" })).response.status).toBe(401);
    expect(await answer(patch(api.bob, t.id, { name: "x" }))).toEqual({ status: 403, body: { detail: "Transcript access denied" } });
    await ok(patch(api.alice, t.id, { share_mode: "semi-private" }));
    expect(await answer(patch(api.bob, t.id, { name: "x" }))).toEqual({ status: 403, body: { detail: "Not authorized" } });
    expect((await patch(api.alice, randomUUID(), { name: "x" })).response.status).toBe(404);
  });
});

describe("delete, restore, destroy", () => {
  const read = (as: ScribeClient, id: string) => as.GET("/v1/transcripts/{transcript_id}", onTranscript(id));
  const remove = (as: ScribeClient, id: string) => as.DELETE("/v1/transcripts/{transcript_id}", onTranscript(id));
  const restore = (as: ScribeClient, id: string) => as.POST("/v1/transcripts/{transcript_id}/restore", onTranscript(id));
  const destroy = (as: ScribeClient, id: string) => as.DELETE("/v1/transcripts/{transcript_id}/destroy", onTranscript(id));

  it("soft-deletes (idempotent), restores, and destroys only after a soft delete", async () => {
    const t = await create(api.alice);
    expect(await answer(restore(api.alice, t.id))).toEqual({ status: 400, body: { detail: "Transcript is not deleted" } });
    expect(await answer(destroy(api.alice, t.id))).toEqual({ status: 400, body: { detail: "Transcript must be soft-deleted first" } });
    expect(await ok(remove(api.alice, t.id))).toEqual({ status: "ok" });
    expect((await read(api.alice, t.id)).response.status).toBe(404);
    const [first] = await sql<{ deleted_at: Date }[]>`select deleted_at from transcript where id = ${t.id}`;
    expect(await ok(remove(api.alice, t.id))).toEqual({ status: "ok" });
    const [again] = await sql<{ deleted_at: Date }[]>`select deleted_at from transcript where id = ${t.id}`;
    expect(again!.deleted_at).toEqual(first!.deleted_at);
    const list = await ok(api.alice.GET("/v1/transcripts"));
    expect(list.items.map((i) => i.id)).not.toContain(t.id);

    expect(await ok(restore(api.alice, t.id))).toEqual({ status: "ok" });
    expect(await ok(read(api.alice, t.id))).toMatchObject({ id: t.id });

    await ok(remove(api.alice, t.id));
    // The owner's user socket hears of it: created, deleted (once), restored, deleted.
    const lifecycle = await eventually(async () => {
      const evs = (await streamEvents(sys.prefix, "TRANSCRIPTS")).filter(
        (e) => transcriptOf(e) === t.id && e.type === "transcript.lifecycle.changed",
      );
      return evs.length === 4 ? evs : null;
    });
    expect(lifecycle.map((e) => e.data.action)).toEqual(["created", "deleted", "restored", "deleted"]);
    expect(await ok(destroy(api.alice, t.id))).toEqual({ status: "ok" });
    expect(await sql`select 1 from transcript where id = ${t.id}`).toHaveLength(0);
    expect((await read(api.alice, t.id)).response.status).toBe(404);
    expect((await restore(api.alice, t.id)).response.status).toBe(404);

    // Once destroyed, only the tombstone stays on the stream (the history is purged, SECURITY.md).
    const after = await eventually(async () => {
      const evs = (await streamEvents(sys.prefix, "TRANSCRIPTS")).filter((e) => transcriptOf(e) === t.id);
      return evs.length === 1 ? evs : null;
    });
    expect(after.map((e) => [e.type, e.data.reason])).toEqual([["transcript.destroyed", "user"]]);
  });

  it("is the owner's: 403 for others (after the 400 on restore/destroy), 404 unknown, 401 anonymous", async () => {
    const t = await create(api.alice);
    expect(await answer(remove(api.bob, t.id))).toEqual({ status: 403, body: { detail: "Not authorized" } });
    expect((await remove(api.anon, t.id)).response.status).toBe(401);
    expect((await remove(api.alice, randomUUID())).response.status).toBe(404);
    await ok(remove(api.alice, t.id));
    expect((await restore(api.bob, t.id)).response.status).toBe(403);
    expect((await destroy(api.bob, t.id)).response.status).toBe(403);
  });
});

describe("participants", () => {
  it("creates, updates and deletes participants with unique speakers", async () => {
    const t = await create(api.alice);
    const transcript = { path: { transcript_id: t.id } };
    const one = (participant_id: string) => ({ params: { path: { transcript_id: t.id, participant_id } } });
    const add = (body: Schemas["CreateParticipant"]) =>
      api.alice.POST("/v1/transcripts/{transcript_id}/participants", { params: transcript, body });
    const update = (participant_id: string, body: Schemas["UpdateParticipant"]) =>
      api.alice.PATCH("/v1/transcripts/{transcript_id}/participants/{participant_id}", { ...one(participant_id), body });
    const remove = (participant_id: string) =>
      api.alice.DELETE("/v1/transcripts/{transcript_id}/participants/{participant_id}", one(participant_id));

    const p1 = await ok(add({ name: "Ann" }));
    expect(p1).toEqual({ id: expect.any(String), name: "Ann", speaker: null });
    const p2 = await ok(add({ name: "Bob", speaker: 1 }));
    expect((await add({ name: "Cid", speaker: 1 })).error).toEqual({ detail: "Speaker already assigned" });
    expect(await ok(api.alice.GET("/v1/transcripts/{transcript_id}/participants", { params: transcript }))).toHaveLength(2);
    expect((await ok(api.alice.GET("/v1/transcripts/{transcript_id}", { params: transcript }))).participants).toHaveLength(2);

    expect(await ok(update(p1.id, { name: "Anna" }))).toEqual({ id: p1.id, name: "Anna", speaker: null });
    expect(await ok(api.alice.GET("/v1/transcripts/{transcript_id}/participants/{participant_id}", one(p1.id)))).toEqual({
      id: p1.id,
      name: "Anna",
      speaker: null,
    });
    const taken = await update(p1.id, { speaker: 1 });
    expect(taken.response.status).toBe(400);
    expect(taken.error).toEqual({ detail: "Speaker already assigned" });
    expect((await update("no-such", { name: "x" })).response.status).toBe(404);
    expect(await ok(remove(p2.id))).toEqual({ status: "ok" });
    expect(await ok(remove("no-such"))).toEqual({ status: "ok" });
    expect(await ok(update(p1.id, { speaker: 1 }))).toEqual({ id: p1.id, name: "Anna", speaker: 1 });
  });

  it("takes a null name on update as unchanged, as the reference's generated client may send it", async () => {
    const t = await create(api.alice);
    const params = { path: { transcript_id: t.id } };
    const p = await ok(api.alice.POST("/v1/transcripts/{transcript_id}/participants", { params, body: { name: "Dee", speaker: 2 } }));
    const updated = await ok(
      api.alice.PATCH("/v1/transcripts/{transcript_id}/participants/{participant_id}", {
        params: { path: { transcript_id: t.id, participant_id: p.id } },
        body: { name: null, speaker: 3 },
      }),
    );
    expect(updated).toEqual({ id: p.id, name: "Dee", speaker: 3 });
    expect(await ok(api.alice.GET("/v1/transcripts/{transcript_id}/participants", { params }))).toEqual([
      { id: p.id, name: "Dee", speaker: 3 },
    ]);
  });

  it("EDIT: anyone signed in on an anonymous transcript, only the owner otherwise; 401 anonymous", async () => {
    const mine = await create(api.alice);
    const params = { path: { transcript_id: mine.id } };
    expect((await api.bob.POST("/v1/transcripts/{transcript_id}/participants", { params, body: { name: "x" } })).response.status).toBe(403);
    expect((await api.anon.POST("/v1/transcripts/{transcript_id}/participants", { params, body: { name: "x" } })).response.status).toBe(
      401,
    );
  });
});

describe("speakers", () => {
  let id: string;
  /** Two topics (words 0–1, 1–2 | 2–3, 3–4, speaker 0), written as a pipeline run would. */
  beforeAll(async () => {
    id = (await create(api.alice)).id;
    await sql`update transcript set current_run_id = 'test-run' where id = ${id}`;
    const w = (text: string, start: number) => ({ text, start, end: start + 1, speaker: 0 });
    const topics: TopicRecord[] = [
      {
        id: randomUUID(),
        title: "A",
        summary: "a",
        timestamp: 0,
        duration: null,
        transcript: null,
        words: [w("Hello", 0), w(" there.", 1)],
      },
      {
        id: randomUUID(),
        title: "B",
        summary: "b",
        timestamp: 2,
        duration: null,
        transcript: null,
        words: [w("How", 2), w(" are you?", 3)],
      },
    ];
    expect(await new DbTranscriptPort(sql, createLogger("test", "silent")).replaceTopics(id, "test-run", topics)).toBe(true);
    await eventually(async () => (await ok(api.alice.GET("/v1/transcripts/{transcript_id}/topics", onTranscript(id)))).length === 2);
  });
  const speakersOf = async () =>
    (await ok(api.alice.GET("/v1/transcripts/{transcript_id}/topics/with-words", onTranscript(id)))).map((t) =>
      t.words.map((w) => w.speaker),
    );
  const assign = (as: ScribeClient, body: Schemas["SpeakerAssignment"]) =>
    as.PATCH("/v1/transcripts/{transcript_id}/speaker/assign", { ...onTranscript(id), body });
  const merge = (as: ScribeClient, body: Schemas["SpeakerMerge"]) =>
    as.PATCH("/v1/transcripts/{transcript_id}/speaker/merge", { ...onTranscript(id), body });
  const addParticipant = (body: Schemas["CreateParticipant"]) =>
    ok(api.alice.POST("/v1/transcripts/{transcript_id}/participants", { ...onTranscript(id), body }));

  it("assigns a speaker to the words in a time range, across topics, and merges speakers", async () => {
    expect(await ok(assign(api.alice, { speaker: 2, timestamp_from: 1, timestamp_to: 2.5 }))).toEqual({ status: "ok" });
    expect(await speakersOf()).toEqual([
      [0, 2],
      [2, 0],
    ]);
    expect(await ok(merge(api.alice, { speaker_from: 2, speaker_to: 0 }))).toEqual({ status: "ok" });
    expect(await speakersOf()).toEqual([
      [0, 0],
      [0, 0],
    ]);
  });

  it("assigns by participant, giving a speaker-less participant the lowest unused speaker", async () => {
    const p = await addParticipant({ name: "Pat" });
    await ok(assign(api.alice, { participant: p.id, timestamp_from: 0, timestamp_to: 1 }));
    expect(
      await ok(
        api.alice.GET("/v1/transcripts/{transcript_id}/participants/{participant_id}", {
          params: { path: { transcript_id: id, participant_id: p.id } },
        }),
      ),
    ).toMatchObject({ speaker: 1 });
    expect(await speakersOf()).toEqual([
      [1, 1],
      [0, 0],
    ]);
    const t = await ok(
      api.alice.GET("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id: id }, query: { transcript_format: "text" } } }),
    );
    expect(t.transcript).toContain("Pat: Hello there.");
  });

  it("refuses neither/both (400), unknown participants (404) and merging two participants' speakers (400)", async () => {
    expect(await answer(assign(api.alice, { timestamp_from: 0, timestamp_to: 1 }))).toEqual({
      status: 400,
      body: { detail: "Either speaker or participant must be provided" },
    });
    expect(await answer(assign(api.alice, { speaker: 1, participant: "x", timestamp_from: 0, timestamp_to: 1 }))).toEqual({
      status: 400,
      body: { detail: "Only one of speaker or participant must be provided" },
    });
    expect(await answer(assign(api.alice, { participant: "no-such", timestamp_from: 0, timestamp_to: 1 }))).toEqual({
      status: 404,
      body: { detail: "Participant not found" },
    });
    await addParticipant({ name: "Zed", speaker: 5 });
    await addParticipant({ name: "Yan", speaker: 6 });
    expect(await answer(merge(api.alice, { speaker_from: 5, speaker_to: 6 }))).toEqual({
      status: 400,
      body: { detail: "Both speakers are assigned to participants" },
    });
    expect((await merge(api.bob, { speaker_from: 0, speaker_to: 1 })).response.status).toBe(403);
  });
});

describe("process", () => {
  it("refuses a transcript with nothing to process, and a locked one", async () => {
    const t = await create(api.alice);
    const process = (as: ScribeClient) => as.POST("/v1/transcripts/{transcript_id}/process", onTranscript(t.id));
    expect(await answer(process(api.alice))).toEqual({ status: 400, body: { detail: "Recording is not ready for processing" } });
    await ok(api.alice.PATCH("/v1/transcripts/{transcript_id}", { ...onTranscript(t.id), body: { locked: true } }));
    expect(await answer(process(api.alice))).toEqual({ status: 400, body: { detail: "Recording is locked" } });
    expect((await process(api.bob)).response.status).toBe(403);
  });
});

describe("retention", () => {
  it("retention does nothing outside PUBLIC_MODE: not even an old anonymous transcript expires", async () => {
    const t = await create(api.alice);
    await sql`update transcript set user_id = null, created_at = now() - interval '30 days' where id = ${t.id}`;
    expect(await transcriptionHooks(sys).expireTranscripts({ now: new Date(Date.now() + 30 * 86_400_000) })).toBeNull();
    expect(await sql`select 1 from transcript where id = ${t.id}`).toHaveLength(1);
  });
});
