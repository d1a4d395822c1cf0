// PUBLIC_MODE: anonymous callers may list and search, and see ownerless and public transcripts there
// (the reference shows them every user's private ones; issue 15.10); reading one transcript still
// follows its share mode.
import { ok } from "@scribe/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSystem, type TestSystem } from "./support/system";
import { TranscriptWriter } from "./support/transcripts";

let sys: TestSystem;
let tw: TranscriptWriter;
const t: Record<string, string> = {};

beforeAll(async () => {
  sys = await startSystem({
    label: "public",
    services: ["projection", "search", "gateway"],
    env: { PUBLIC_MODE: "true", DATABASE_POOL_SIZE: "3" },
  });
  tw = await TranscriptWriter.connect(sys.prefix);
  const mk = async (key: string, o: Parameters<TranscriptWriter["create"]>[0]) => {
    t[key] = (await tw.create({ title: "Pangolin review", ...o })).id;
    await tw.applied(t[key]!);
  };
  await mk("alicePrivate", { user_id: "alice", share_mode: "private" });
  await mk("aliceSemi", { user_id: "alice", share_mode: "semi-private" });
  await mk("alicePublic", { user_id: "alice", share_mode: "public" });
  await mk("ownerless", { user_id: null });
  await mk("deleted", { user_id: "alice", deleted_at: new Date().toISOString() });
});
afterAll(async () => {
  await tw?.close();
  await sys?.stop();
});

const list = (who: string | null) => ok(sys.client(who).GET("/v1/transcripts"));
const search = (who: string | null) => ok(sys.client(who).GET("/v1/transcripts/search", { params: { query: { q: "pangolin" } } }));
const readStatus = async (who: string | null, id: string) =>
  (await sys.client(who).GET("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id: id } } })).response.status;

describe("PUBLIC_MODE", () => {
  it("lets anonymous callers list ownerless and public transcripts, not users' private ones", async () => {
    const ids = (await list(null)).items.map((i) => i.id);
    expect(ids.sort()).toEqual([t.alicePublic, t.ownerless].sort());
  });

  it("lets anonymous callers search ownerless and public transcripts only", async () => {
    const body = await search(null);
    expect(body.total).toBe(2);
    expect(body.results.map((r) => r.id).sort()).toEqual([t.alicePublic, t.ownerless].sort());
  });

  it("still answers 403 to an anonymous read of a private transcript, and reads ownerless ones", async () => {
    expect(await readStatus(null, t.alicePrivate!)).toBe(403);
    expect(await readStatus(null, t.ownerless!)).toBe(200);
  });

  it("keeps signed-in users to their own transcripts and shared rooms", async () => {
    expect((await list("bob")).items).toEqual([]);
    expect((await search("bob")).total).toBe(0);
  });
});
