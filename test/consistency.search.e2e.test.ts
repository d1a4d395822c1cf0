// Read-your-writes of room changes in search and lists (issue 21.1, docs/ARCHITECTURE.md
// "Consistency: read-your-writes", feed positions): a room renamed or unshared is seen at once by the
// next search or list — by another user whose client carries no versions — although the read model
// learns of the change from the room's event, tens of milliseconds later.
import { ok, type ScribeClient } from "@scribe/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSystem, type TestSystem } from "./support/system";
import { TranscriptWriter } from "./support/transcripts";

let sys: TestSystem;
let tw: TranscriptWriter;
let alice: ScribeClient;
let bob: ScribeClient;
let roomId: string;
let transcriptId: string;
const ROUNDS = 25;

beforeAll(async () => {
  sys = await startSystem({ label: "rywsearch", services: ["rooms", "projection", "search", "gateway"], env: { DATABASE_POOL_SIZE: "3" } });
  tw = await TranscriptWriter.connect(sys.prefix);
  alice = sys.client("alice");
  bob = sys.client("bob");
  roomId = (await ok(alice.POST("/v1/rooms", { body: { name: "kestrel-room", is_shared: true } }))).id;
  transcriptId = (await tw.create({ user_id: "alice", room_id: roomId, title: "Kestrel review" })).id;
  await tw.applied(transcriptId);
});
afterAll(async () => {
  await tw?.close();
  await sys?.stop();
});

const updateRoom = (body: { name?: string; is_shared?: boolean }) =>
  ok(alice.PATCH("/v1/rooms/{room_id}", { params: { path: { room_id: roomId } }, body }));
const bobSearches = () => ok(bob.GET("/v1/transcripts/search", { params: { query: { q: "kestrel" } } }));
const bobLists = () => ok(bob.GET("/v1/transcripts", { params: { query: { room_id: roomId } } }));
// A single transcript follows its share mode, not the room's sharing: its owner reads it.
const ownerReads = () => ok(alice.GET("/v1/transcripts/{transcript_id}", { params: { path: { transcript_id: transcriptId } } }));

describe("room changes seen at once by search and lists", () => {
  it(`shows a renamed room's new name in the next search, list and read, ${ROUNDS} times`, async () => {
    const stale: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const name = `kestrel-room-${i}`;
      await updateRoom({ name });
      const [found, listed, read] = await Promise.all([bobSearches(), bobLists(), ownerReads()]);
      const searched = found.results.find((r) => r.id === transcriptId)?.room_name;
      const inList = listed.items.find((t) => t.id === transcriptId)?.room_name;
      if (searched !== name || inList !== name || read.room_name !== name)
        stale.push(`${name}: search ${searched}, list ${inList}, read ${read.room_name}`);
    }
    expect(stale).toEqual([]);
  }, 120_000);

  it(`hides an unshared room's transcripts from others at once, and shows them again when shared, ${ROUNDS} times`, async () => {
    const wrong: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const shared = i % 2 === 1;
      await updateRoom({ is_shared: shared });
      const [found, listed] = await Promise.all([bobSearches(), bobLists()]);
      const visible = { search: found.results.some((r) => r.id === transcriptId), list: listed.items.some((t) => t.id === transcriptId) };
      if (visible.search !== shared || visible.list !== shared) wrong.push(`round ${i} shared=${shared}: ${JSON.stringify(visible)}`);
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});
