// Full-text search end to end (api.md §2.9, behaviour-search-notify-auth §1): ranking by field weight,
// snippets, the room and kind filters, the trash view, room names, paging, visibility, deleted rooms.
// Through the typed client (@scribe/client), as the web app calls it.
import { ok, type operations, type ScribeClient } from "@scribe/client";
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSystem, type TestSystem } from "./support/system";
import { TranscriptWriter, vtt } from "./support/transcripts";

let sys: TestSystem;
let tw: TranscriptWriter;
let alice: ScribeClient;
let bob: ScribeClient;

beforeAll(async () => {
  sys = await startSystem({ label: "search", services: ["rooms", "projection", "search", "gateway"], env: { DATABASE_POOL_SIZE: "3" } });
  tw = await TranscriptWriter.connect(sys.prefix);
  alice = sys.client("alice");
  bob = sys.client("bob");
});
afterAll(async () => {
  await tw?.close();
  await sys?.stop();
});

async function createRoom(api: ScribeClient, name: string, extra: { is_shared?: boolean } = {}): Promise<{ id: string }> {
  return ok(api.POST("/v1/rooms", { body: { name, ...extra } }));
}
type SearchQuery = operations["v1_transcripts_search"]["parameters"]["query"];
const search = (api: ScribeClient, query: SearchQuery) => ok(api.GET("/v1/transcripts/search", { params: { query } }));
/** A refused search (raw query values, as a hand-written URL would carry them): its status and body. */
async function refusedSearch(api: ScribeClient, query: Record<string, string>) {
  const { error, response } = await api.GET("/v1/transcripts/search", { params: { query: query as unknown as SearchQuery } });
  return { status: response.status, error: error as { detail: unknown } };
}
const ids = (r: { results: { id: string }[] }) => r.results.map((x) => x.id);

describe("ranking and snippets", () => {
  const t: Record<string, string> = {};
  beforeAll(async () => {
    const mk = async (key: string, o: Parameters<TranscriptWriter["create"]>[0]) => {
      t[key] = (await tw.create({ user_id: "alice", ...o })).id;
      await tw.applied(t[key]!);
    };
    await mk("webvtt", { title: "Weekly sync", webvtt: vtt("We should talk about the zeppelin budget.") });
    await mk("summary", { title: "Planning", long_summary: "The team discussed the zeppelin launch date." });
    await mk("title", { title: "Zeppelin retrospective" });
    await mk("robotics", {
      title: "Robotics",
      long_summary: `Robotics came up first. ${"Unrelated filler sentence here. ".repeat(6)}Then robotics again at length.`,
      webvtt: vtt("I think robotics matters.", "Nothing else."),
    });
  });

  it("ranks a title match above a summary match above a WebVTT match", async () => {
    const r = await search(alice, { q: "zeppelin" });
    expect(ids(r)).toEqual([t.title, t.summary, t.webvtt]);
    expect(r).toMatchObject({ total: 3, query: "zeppelin", limit: 20, offset: 0 });
    for (const x of r.results) expect(x).not.toHaveProperty("rank");
  });

  it("has no snippets and no count for a title-only match", async () => {
    const r = await search(alice, { q: "zeppelin" });
    expect(r.results[0]).toMatchObject({ id: t.title, search_snippets: [], total_match_count: 0, title: "Zeppelin retrospective" });
    expect(r.results[1]?.search_snippets).toEqual(["The team discussed the zeppelin launch date."]);
    expect(r.results[2]?.search_snippets).toEqual(["We should talk about the zeppelin budget."]);
  });

  it("takes at most 2 snippets from long_summary, then fills from the WebVTT caption text", async () => {
    const r = await search(alice, { q: "robotics" });
    const hit = r.results.find((x) => x.id === t.robotics)!;
    expect(hit.search_snippets).toHaveLength(3);
    expect(hit.search_snippets[0]).toMatch(/^Robotics came up first\./);
    expect(hit.search_snippets[1]).toMatch(/robotics again at length\.$/);
    expect(hit.search_snippets[2]).toBe("I think robotics matters. Nothing else.");
    expect(hit.total_match_count).toBe(3);
  });

  it("understands web-search syntax: phrases, OR and negation", async () => {
    expect(ids(await search(alice, { q: '"zeppelin launch"' }))).toEqual([t.summary]);
    expect(ids(await search(alice, { q: "zeppelin OR robotics" })).sort()).toEqual([t.title, t.summary, t.webvtt, t.robotics].sort());
    expect(ids(await search(alice, { q: "zeppelin -budget" }))).toEqual([t.title, t.summary]);
    expect((await search(alice, { q: "the a" })).results).toEqual([]);
  });

  it("lists newest first with an empty query (browse), without snippets", async () => {
    const r = await search(alice, { q: "  " });
    expect(r.query).toBeNull();
    expect(ids(r).slice(0, 4)).toEqual([t.robotics, t.title, t.summary, t.webvtt]);
    expect(r.results.every((x: { search_snippets: string[] }) => x.search_snippets.length === 0)).toBe(true);
  });
});

describe("filters, paging and visibility", () => {
  let roomA: { id: string };
  let roomB: { id: string };
  let sharedRoom: { id: string };
  const t: Record<string, string> = {};
  beforeAll(async () => {
    roomA = await createRoom(alice, "aquarium");
    roomB = await createRoom(alice, "boardroom");
    sharedRoom = await createRoom(bob, "commons", { is_shared: true });
    const mk = async (key: string, o: Parameters<TranscriptWriter["create"]>[0]) => {
      t[key] = (await tw.create({ title: "Quokka notes", ...o })).id;
      await tw.applied(t[key]!);
    };
    for (let i = 0; i < 5; i++) await mk(`a${i}`, { user_id: "alice", room_id: roomA.id, created_at: `2026-03-0${i + 1}T00:00:00.000Z` });
    await mk("b", { user_id: "alice", room_id: roomB.id });
    await mk("bobShared", { user_id: "bob", room_id: sharedRoom.id, share_mode: "private" });
    await mk("bobOwn", { user_id: "bob", share_mode: "public" });
    // Room names reach the read model from ROOMS events, independently of the transcripts.
    await eventually(async () => (await search(alice, { q: "aquarium" })).total === 5);
  });

  it("filters by one room_id", async () => {
    const r = await search(alice, { q: "quokka", room_id: roomB.id });
    expect(ids(r)).toEqual([t.b]);
    expect(r.results[0]?.room_name).toBe("boardroom");
  });

  it("finds transcripts by their room's name", async () => {
    expect(ids(await search(alice, { q: "boardroom" }))).toEqual([t.b]);
  });

  it("pages with limit and offset over a stable order, total counting every match", async () => {
    const all = await search(alice, { q: "quokka", room_id: roomA.id });
    expect(all.total).toBe(5);
    const pages = [];
    for (let offset = 0; offset < 5; offset += 2)
      pages.push(...ids(await search(alice, { q: "quokka", room_id: roomA.id, limit: 2, offset })));
    expect(pages).toEqual(ids(all));
    const past = await search(alice, { q: "quokka", room_id: roomA.id, limit: 2, offset: 10 });
    expect(past).toMatchObject({ results: [], total: 5, limit: 2, offset: 10 });
    for (const bad of [{ limit: "0" }, { limit: "101" }, { offset: "-1" }] as Record<string, string>[]) {
      expect((await refusedSearch(alice, { q: "quokka", ...bad })).status).toBe(422);
    }
  });

  it("shows a user their own transcripts and those of shared rooms, not others' (whatever the share mode)", async () => {
    const forAlice = ids(await search(alice, { q: "quokka", limit: 100 }));
    expect(forAlice).toContain(t.bobShared);
    expect(forAlice).not.toContain(t.bobOwn);
    const forCarol = ids(await search(sys.client("carol"), { q: "quokka", limit: 100 }));
    expect(forCarol).toEqual([t.bobShared]);
  });

  it("shows a deleted room as 'Deleted Room' and no longer finds its name", async () => {
    await ok(bob.DELETE("/v1/rooms/{room_id}", { params: { path: { room_id: sharedRoom.id } } }));
    await eventually(async () => {
      const r = await search(bob, { q: "quokka", limit: 100 });
      return r.results.find((x) => x.id === t.bobShared)?.room_name === "Deleted Room";
    });
    expect(ids(await search(bob, { q: "commons" }))).toEqual([]);
    // A deleted room is no longer shared: only its transcripts' owner still finds them.
    expect(ids(await search(alice, { q: "quokka", limit: 100 }))).not.toContain(t.bobShared);
  });

  it("hides soft-deleted transcripts", async () => {
    await tw.update(t.a0!, { deleted_at: new Date().toISOString() });
    await tw.applied(t.a0!);
    expect(ids(await search(alice, { q: "quokka", room_id: roomA.id }))).not.toContain(t.a0);
  });
});

describe("the reference web app's kind filter and trash view", () => {
  const t: Record<string, string> = {};
  beforeAll(async () => {
    const mk = async (key: string, o: Parameters<TranscriptWriter["create"]>[0]) => {
      t[key] = (await tw.create({ title: "Wombat review", ...o })).id;
      await tw.applied(t[key]!);
    };
    await mk("file", { user_id: "alice", source_kind: "file" });
    await mk("live", { user_id: "alice", source_kind: "live" });
    await mk("deletedFile", { user_id: "alice", source_kind: "file", deleted_at: new Date().toISOString() });
    await mk("deletedLive", { user_id: "alice", source_kind: "live", deleted_at: new Date().toISOString() });
    await mk("bobDeleted", { user_id: "bob", deleted_at: new Date().toISOString() });
  });

  it("filters by source_kind", async () => {
    expect(ids(await search(alice, { q: "wombat", source_kind: "file" }))).toEqual([t.file]);
    expect(ids(await search(alice, { q: "wombat", source_kind: "live" }))).toEqual([t.live]);
    expect((await search(alice, { q: "wombat", source_kind: "room" })).total).toBe(0);
    const bad = await refusedSearch(alice, { q: "wombat", source_kind: "zoom" });
    expect(bad.status).toBe(422);
    expect((bad.error.detail as { loc: string[] }[])[0]!.loc).toEqual(["query", "source_kind"]);
  });

  it("shows only the caller's own soft-deleted transcripts with include_deleted=true, with the other filters", async () => {
    expect(ids(await search(alice, { q: "wombat", include_deleted: true })).sort()).toEqual([t.deletedFile, t.deletedLive].sort());
    expect(ids(await search(alice, { q: "wombat", include_deleted: true, source_kind: "live" }))).toEqual([t.deletedLive]);
    expect(ids(await search(bob, { q: "wombat", include_deleted: true }))).toEqual([t.bobDeleted]);
    expect(ids(await search(alice, { q: "wombat", include_deleted: false })).sort()).toEqual([t.file, t.live].sort());
  });

  it("answers 401 to an anonymous trash view, even in PUBLIC_MODE", async () => {
    const pub = await startSystem({
      label: "search-public",
      services: ["rooms", "projection", "search", "gateway"],
      env: { PUBLIC_MODE: "true" },
    });
    try {
      const anon = pub.client(null);
      const trash = await refusedSearch(anon, { q: "", include_deleted: "true" });
      expect(trash).toEqual({ status: 401, error: { detail: "Authentication required to view deleted transcripts" } });
      expect((await search(anon, { q: "" })).total).toBe(0);
    } finally {
      await pub.stop();
    }
  });
});

describe("parameters and authentication", () => {
  it("requires q and refuses the filters Scribe does not offer, naming the parameter", async () => {
    const missing = await refusedSearch(alice, {});
    expect(missing.status).toBe(422);
    expect((missing.error.detail as { loc: string[] }[])[0]!.loc).toEqual(["query", "q"]);
    for (const [name, value] of [
      ["from", "2024-01-01T00:00:00Z"],
      ["to", "2024-01-01T00:00:00Z"],
    ] as const) {
      const refused = await refusedSearch(alice, { q: "x", [name]: value });
      expect(refused.status).toBe(422);
      const issue = (refused.error.detail as { loc: string[]; msg: string }[])[0]!;
      expect(issue.loc).toEqual(["query", name]);
      expect(issue.msg).toMatch(/not offered/);
    }
  });

  it("answers 401 to anonymous callers outside PUBLIC_MODE", async () => {
    expect(await refusedSearch(sys.client(null), { q: "x" })).toEqual({ status: 401, error: { detail: "Not authenticated" } });
  });
});
