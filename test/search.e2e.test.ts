// Full-text search end to end (api.md §2.9, behaviour-search-notify-auth §1): ranking by field weight,
// snippets, the room filter, room names, paging, visibility, deleted rooms, PUBLIC_MODE.
import { eventually } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSystem, type Client, type TestSystem } from "./support/system";
import { TranscriptWriter, vtt } from "./support/transcripts";

let sys: TestSystem;
let tw: TranscriptWriter;
let alice: Client;
let bob: Client;

beforeAll(async () => {
  sys = await startSystem({ label: "search", services: ["rooms", "projection", "search", "gateway"], env: { DATABASE_POOL_SIZE: "3" } });
  tw = await TranscriptWriter.connect(sys.prefix);
  alice = sys.as("alice");
  bob = sys.as("bob");
});
afterAll(async () => {
  await tw?.close();
  await sys?.stop();
});

const post = (body: unknown): RequestInit => ({ method: "POST", body: JSON.stringify(body) });
async function createRoom(as: Client, name: string, extra: Record<string, unknown> = {}): Promise<{ id: string }> {
  const res = await as("/v1/rooms", post({ name, ...extra }));
  expect(res.status).toBe(200);
  return res.json();
}
async function search(as: Client, query: string, status = 200) {
  const res = await as(`/v1/transcripts/search?${query}`);
  expect(res.status, await res.clone().text()).toBe(status);
  return res.json();
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
    const r = await search(alice, "q=zeppelin");
    expect(ids(r)).toEqual([t.title, t.summary, t.webvtt]);
    expect(r).toMatchObject({ total: 3, query: "zeppelin", limit: 20, offset: 0 });
    for (const x of r.results) expect(x).not.toHaveProperty("rank");
  });

  it("has no snippets and no count for a title-only match", async () => {
    const r = await search(alice, "q=zeppelin");
    expect(r.results[0]).toMatchObject({ id: t.title, search_snippets: [], total_match_count: 0, title: "Zeppelin retrospective" });
    expect(r.results[1].search_snippets).toEqual(["The team discussed the zeppelin launch date."]);
    expect(r.results[2].search_snippets).toEqual(["We should talk about the zeppelin budget."]);
  });

  it("takes at most 2 snippets from long_summary, then fills from the WebVTT caption text", async () => {
    const r = await search(alice, "q=robotics");
    const hit = r.results.find((x: { id: string }) => x.id === t.robotics);
    expect(hit.search_snippets).toHaveLength(3);
    expect(hit.search_snippets[0]).toMatch(/^Robotics came up first\./);
    expect(hit.search_snippets[1]).toMatch(/robotics again at length\.$/);
    expect(hit.search_snippets[2]).toBe("I think robotics matters. Nothing else.");
    expect(hit.total_match_count).toBe(3);
  });

  it("understands web-search syntax: phrases, OR and negation", async () => {
    expect(ids(await search(alice, `q=${encodeURIComponent('"zeppelin launch"')}`))).toEqual([t.summary]);
    expect(ids(await search(alice, "q=zeppelin%20OR%20robotics")).sort()).toEqual([t.title, t.summary, t.webvtt, t.robotics].sort());
    expect(ids(await search(alice, "q=zeppelin%20-budget"))).toEqual([t.title, t.summary]);
    expect((await search(alice, "q=the%20a")).results).toEqual([]);
  });

  it("lists newest first with an empty query (browse), without snippets", async () => {
    const r = await search(alice, "q=%20%20");
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
    await eventually(async () => (await search(alice, "q=aquarium")).total === 5);
  });

  it("filters by one room_id", async () => {
    const r = await search(alice, `q=quokka&room_id=${roomB.id}`);
    expect(ids(r)).toEqual([t.b]);
    expect(r.results[0].room_name).toBe("boardroom");
  });

  it("finds transcripts by their room's name", async () => {
    expect(ids(await search(alice, "q=boardroom"))).toEqual([t.b]);
  });

  it("pages with limit and offset over a stable order, total counting every match", async () => {
    const all = await search(alice, `q=quokka&room_id=${roomA.id}`);
    expect(all.total).toBe(5);
    const pages = [];
    for (let offset = 0; offset < 5; offset += 2) pages.push(...ids(await search(alice, `q=quokka&room_id=${roomA.id}&limit=2&offset=${offset}`)));
    expect(pages).toEqual(ids(all));
    const past = await search(alice, `q=quokka&room_id=${roomA.id}&limit=2&offset=10`);
    expect(past).toMatchObject({ results: [], total: 5, limit: 2, offset: 10 });
    await search(alice, "q=quokka&limit=0", 422);
    await search(alice, "q=quokka&limit=101", 422);
    await search(alice, "q=quokka&offset=-1", 422);
  });

  it("shows a user their own transcripts and those of shared rooms, not others' (whatever the share mode)", async () => {
    const forAlice = ids(await search(alice, "q=quokka&limit=100"));
    expect(forAlice).toContain(t.bobShared);
    expect(forAlice).not.toContain(t.bobOwn);
    const forCarol = ids(await search(sys.as("carol"), "q=quokka&limit=100"));
    expect(forCarol).toEqual([t.bobShared]);
  });

  it("shows a deleted room as 'Deleted Room' and no longer finds its name", async () => {
    const res = await bob(`/v1/rooms/${sharedRoom.id}`, { method: "DELETE" });
    expect(res.status).toBe(200);
    await eventually(async () => {
      const r = await search(bob, "q=quokka&limit=100");
      return r.results.find((x: { id: string }) => x.id === t.bobShared)?.room_name === "Deleted Room";
    });
    expect(ids(await search(bob, "q=commons"))).toEqual([]);
    // A deleted room is no longer shared: only its transcripts' owner still finds them.
    expect(ids(await search(alice, "q=quokka&limit=100"))).not.toContain(t.bobShared);
  });

  it("hides soft-deleted transcripts", async () => {
    await tw.update(t.a0!, { deleted_at: new Date().toISOString() });
    await tw.applied(t.a0!);
    expect(ids(await search(alice, `q=quokka&room_id=${roomA.id}`))).not.toContain(t.a0);
  });
});

describe("parameters and authentication", () => {
  it("requires q and refuses the filters Scribe does not offer, naming the parameter", async () => {
    expect((await search(alice, "", 422)).detail[0].loc).toEqual(["query", "q"]);
    for (const p of ["source_kind=file", "from=2024-01-01T00:00:00Z", "to=2024-01-01T00:00:00Z", "include_deleted=true"]) {
      const body = await search(alice, `q=x&${p}`, 422);
      expect(body.detail[0].loc).toEqual(["query", p.split("=")[0]]);
      expect(body.detail[0].msg).toMatch(/not offered/);
    }
    await search(alice, "q=x&include_deleted=false");
  });

  it("answers 401 to anonymous callers outside PUBLIC_MODE", async () => {
    expect(await search(sys.as(null), "q=x", 401)).toEqual({ detail: "Not authenticated" });
  });
});
