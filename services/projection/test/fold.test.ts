// The read model's fold (services/projection/src/domain/fold.ts): the pure rules, then the SQL of
// store.ts checked against them on a real database, for a transcript's history applied in order,
// reversed, shuffled and redelivered.
import {
  gzipText,
  makeEvent,
  transcriptUpdated,
  type ScribeEvent,
  type TopicRecord,
  type TranscriptState,
  type TranscriptUpdated,
} from "@scribe/contracts";
import { sampleRoomState, sampleTranscriptState } from "@scribe/contracts/testing";
import { connectDb, migrate, serviceMigrations, type Sql } from "@scribe/kit";
import { createTestDatabase, eventually, type TestDatabase } from "@scribe/kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { foldTranscript, type FoldResult, type TranscriptFoldEvent, type TranscriptRow } from "../src/domain/fold";
import { LIVE_TABLES, TranscriptNotYetKnown, applyEvent, applyInOrder, planInOrder } from "../src/store";

const SOURCE = "scribe/transcription";
const T0 = "2026-11-21T10:00:00.000Z";

function stateOf(id: string, version: number, over: Partial<TranscriptState> = {}): TranscriptState {
  const updated_at = new Date(Date.parse(T0) + version * 1000).toISOString();
  const fixed = {
    name: "n",
    status: "idle",
    duration: 0,
    created_at: T0,
    updated_at,
    audio_location: "local",
    user_id: "alice",
    source_kind: "file",
  } as const;
  return sampleTranscriptState({ id, version, ...fixed, ...over });
}
const topic = (id: string, text: string): TopicRecord => ({
  id,
  title: id,
  summary: "",
  timestamp: 0,
  duration: null,
  transcript: null,
  words: [{ text, start: 0, end: 1, speaker: 0 }],
});

/** transcript.updated's data when the change left the WebVTT as it was. */
function webvttUnchanged(s: TranscriptState): TranscriptUpdated {
  const { webvtt: _left, ...rest } = s;
  return rest;
}

type Wire = ScribeEvent & TranscriptFoldEvent;
const ev = (type: TranscriptFoldEvent["type"], data: unknown, at: number): Wire =>
  makeEvent(type, data as never, { source: SOURCE, time: new Date(Date.parse(T0) + at * 1000) }).event as Wire;

/** transcript.completed's data: v1 carried the WebVTT in the state, v2 leaves it out of it (carried compressed). */
function completion(s: TranscriptState, version: 1 | 2): unknown {
  const common = { topics: [], run_id: "r", completed_at: T0 };
  return version === 1
    ? { transcript: s, ...common }
    : { transcript: webvttUnchanged(s), webvtt_gzip: s.webvtt && gzipText(s.webvtt), ...common };
}

/** transcript.updated's data for a change of the WebVTT: v3 carries it compressed, v2 as text. */
const carryingWebvtt = (s: TranscriptState, version: 2 | 3): TranscriptUpdated => (version === 3 ? transcriptUpdated(s, true) : s);

/**
 * A transcript's life as the write side announces it: created, processed twice (a reprocess clears),
 * completed (as v1 or v2 announce it, its WebVTT changes as transcript.updated v2 or v3 do: the
 * stream keeps the old events).
 */
function history(id: string, destroyed: boolean, completedVersion: 1 | 2 = 2, updatedVersion: 2 | 3 = 3): Wire[] {
  const events: Wire[] = [
    ev("transcript.created", stateOf(id, 1), 1),
    ev("transcript.topics.cleared", { transcript_id: id, version: 2 }, 2),
    ev("transcript.topic.upserted", { transcript_id: id, version: 3, position: 0, topic: topic("a", "first") }, 3),
    ev("transcript.topic.upserted", { transcript_id: id, version: 4, position: 1, topic: topic("b", "second") }, 4),
    ev("transcript.updated", carryingWebvtt(stateOf(id, 5, { status: "processing", webvtt: "WEBVTT\n\none" }), updatedVersion), 5),
    ev("transcript.topics.cleared", { transcript_id: id, version: 6 }, 6),
    ev("transcript.topic.upserted", { transcript_id: id, version: 7, position: 0, topic: topic("c", "again") }, 7),
    ev("transcript.updated", carryingWebvtt(stateOf(id, 8, { title: "Weekly", webvtt: "WEBVTT\n\ntwo" }), updatedVersion), 8),
    ev(
      "transcript.completed",
      completion(stateOf(id, 9, { title: "Weekly", status: "ended", webvtt: "WEBVTT\n\ntwo" }), completedVersion),
      9,
    ),
    // A speaker assigned (the topics' words changed: a new WebVTT), then a rename that leaves it out.
    ev(
      "transcript.updated",
      carryingWebvtt(stateOf(id, 10, { title: "Weekly", status: "ended", webvtt: "WEBVTT\n\nthree" }), updatedVersion),
      10,
    ),
    ev("transcript.updated", webvttUnchanged(stateOf(id, 11, { title: "Renamed", status: "ended" })), 11),
  ];
  if (destroyed)
    events.push(
      ev(
        "transcript.destroyed",
        { transcript: stateOf(id, 12, { title: "Renamed", status: "ended", deleted_at: T0 }), reason: "user" },
        12,
      ),
    );
  return events;
}

/** Fold like a consumer does: an event refused as not yet known is redelivered after the others. */
function foldAll(events: Wire[]): TranscriptRow | null {
  let row: TranscriptRow | null = null;
  let pending = events;
  while (pending.length) {
    const retry: Wire[] = [];
    for (const e of pending) {
      const r: FoldResult = foldTranscript(row, e);
      if (r === "not_yet_known") retry.push(e);
      else if (r !== "unchanged") row = r;
    }
    if (retry.length === pending.length) throw new Error("events that can never apply");
    pending = retry;
  }
  return row;
}

/** A tombstone takes no topic event any more: which clear it saw last no longer matters. */
const observable = (r: TranscriptRow | null) => (r?.destroyed_at ? { ...r, topics_reset_version: "any" } : r);

function shuffled<T>(xs: T[], seed: number): T[] {
  const out = [...xs];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe("the fold, pure", () => {
  const id = "t";
  it("a newer state replaces the row; an older or the same state is stale", () => {
    const row = foldAll([ev("transcript.created", stateOf(id, 1), 1), ev("transcript.updated", stateOf(id, 3, { title: "new" }), 3)])!;
    expect(row).toMatchObject({ version: 3, state_version: 3, state: { title: "new" } });
    expect(foldTranscript(row, ev("transcript.updated", stateOf(id, 2, { title: "old" }), 2))).toBe("unchanged");
    expect(foldTranscript(row, ev("transcript.updated", stateOf(id, 3, { title: "new" }), 3))).toBe("unchanged");
  });
  it("a state that leaves the WebVTT out keeps the WebVTT of the highest version that carried one", () => {
    const carried = ev("transcript.updated", stateOf(id, 2, { webvtt: "WEBVTT\n\nnew" }), 2);
    const left = ev("transcript.updated", webvttUnchanged(stateOf(id, 3, { title: "renamed" })), 3);
    const created = ev("transcript.created", stateOf(id, 1, { webvtt: "WEBVTT\n\nold" }), 1);
    for (const order of [
      [created, carried, left],
      [created, left, carried],
      [left, carried, created],
    ]) {
      expect(foldAll(order)).toMatchObject({ state_version: 3, webvtt_version: 2, state: { title: "renamed", webvtt: "WEBVTT\n\nnew" } });
    }
  });
  it("transcript.completed v2 keeps the WebVTT of the state that carried it; v1 carried it", () => {
    const created = ev("transcript.created", stateOf(id, 1, { webvtt: "WEBVTT\n\nold" }), 1);
    const carried = ev("transcript.updated", stateOf(id, 2, { webvtt: "WEBVTT\n\nnew" }), 2);
    const ended = stateOf(id, 3, { status: "ended", webvtt: "WEBVTT\n\nnew" });
    for (const version of [1, 2] as const) {
      const completed = ev("transcript.completed", completion(ended, version), 3);
      for (const order of [
        [created, carried, completed],
        [completed, carried, created],
        [created, completed, carried],
      ])
        expect(foldAll(order)).toMatchObject({
          state_version: 3,
          webvtt_version: version === 1 ? 3 : 2,
          state: { status: "ended", webvtt: "WEBVTT\n\nnew" },
        });
    }
  });
  it("transcript.updated v3 (the WebVTT compressed) folds to the row v2 (as text) gives, whatever else the history holds", () => {
    for (const destroyed of [false, true])
      for (const completedVersion of [1, 2] as const) {
        const v2 = history(id, destroyed, completedVersion, 2);
        const v3 = history(id, destroyed, completedVersion, 3);
        expect(v3.filter((e) => e.type === "transcript.updated" && "webvtt" in e.data)).toEqual([]);
        expect(foldAll(v3)).toEqual(foldAll(v2));
        // A history that spans the upgrade: v2 events before, v3 after.
        expect(foldAll([...v2.slice(0, 6), ...v3.slice(6)])).toEqual(foldAll(v2));
      }
    expect(foldAll(history(id, false))).toMatchObject({ webvtt_version: 10, state: { webvtt: "WEBVTT\n\nthree" } });
  });
  it("a topic event before its transcript is not known yet (retried), one behind the last clear is stale", () => {
    const upsert = ev("transcript.topic.upserted", { transcript_id: id, version: 2, position: 0, topic: topic("a", "x") }, 2);
    expect(foldTranscript(null, upsert)).toBe("not_yet_known");
    const cleared = foldAll([
      ev("transcript.created", stateOf(id, 1), 1),
      ev("transcript.topics.cleared", { transcript_id: id, version: 3 }, 3),
    ]);
    expect(foldTranscript(cleared, upsert)).toBe("unchanged");
  });
  it("a clear drops the topics older than itself and keeps newer ones that arrived first", () => {
    const row = foldAll([
      ev("transcript.created", stateOf(id, 1), 1),
      ev("transcript.topic.upserted", { transcript_id: id, version: 2, position: 0, topic: topic("old", "x") }, 2),
      ev("transcript.topic.upserted", { transcript_id: id, version: 4, position: 1, topic: topic("new", "y") }, 4),
      ev("transcript.topics.cleared", { transcript_id: id, version: 3 }, 3),
    ])!;
    expect(Object.keys(row.topics)).toEqual(["1"]);
    expect(row).toMatchObject({ version: 4, topics_reset_version: 3 });
  });
  it("a destroyed transcript is a tombstone: nothing it held, and nothing applies after it", () => {
    const events = history(id, true);
    const row = foldAll(events)!;
    expect(row).toMatchObject({
      destroyed_at: events.at(-1)!.time,
      topics: {},
      state: { title: null, name: "", participants: [], webvtt: null },
    });
    expect(foldTranscript(row, ev("transcript.updated", stateOf(id, 11, { title: "back" }), 11))).toBe("unchanged");
  });
  it("every order of the same events folds to the same row", () => {
    for (const destroyed of [false, true]) {
      const events = history(id, destroyed);
      const inOrder = observable(foldAll(events));
      for (const seed of [1, 2, 3, 4, 5]) expect(observable(foldAll(shuffled(events, seed)))).toEqual(inOrder);
      expect(observable(foldAll([...events].reverse()))).toEqual(inOrder);
      expect(observable(foldAll([...events, ...events]))).toEqual(inOrder);
    }
  });
});

describe("the SQL path agrees with the fold", () => {
  let db: TestDatabase;
  let sql: Sql;
  beforeAll(async () => {
    db = await createTestDatabase("pfold");
    sql = connectDb(db.url, { schema: "projection", max: 2 });
    await migrate(sql, { schema: "projection", migrations: serviceMigrations("projection") });
  });
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await db?.drop();
  });

  /**
   * Apply through store.ts like the consumer: in batches of `batch` events (applyInOrder, one
   * transaction; every other batch planned first), a failed batch redone event by event; not-yet-known events are redelivered after
   * the others. `batch` 1 is applyEvent alone.
   */
  async function applyAll(events: Wire[], batch = 1): Promise<void> {
    let pending = events;
    while (pending.length) {
      const retry: Wire[] = [];
      for (let i = 0; i < pending.length; i += batch) {
        const slice = pending.slice(i, i + batch);
        if (batch > 1) {
          try {
            // Every other batch planned ahead, as the live consumer's are.
            const planned = (i / batch) % 2 === 1 ? planInOrder(slice) : slice;
            await sql.begin((tx) => applyInOrder(tx, LIVE_TABLES, planned, { announce: false }));
            continue;
          } catch (err) {
            if (!(err instanceof TranscriptNotYetKnown)) throw err;
          }
        }
        for (const e of slice) {
          try {
            await sql.begin((tx) => applyEvent(tx, LIVE_TABLES, e, { announce: false }));
          } catch (err) {
            if (!(err instanceof TranscriptNotYetKnown)) throw err;
            retry.push(e);
          }
        }
      }
      if (retry.length === pending.length) throw new Error("events that can never apply");
      pending = retry;
    }
  }

  async function rowOf(id: string) {
    const [t] = await sql`
      select version, state_version, webvtt_version, topics_reset_version, destroyed_at, name, status, title, webvtt, deleted_at, participants
      from transcript where id = ${id}`;
    const topics = await sql<{ position: number; version: number; topic: TopicRecord }[]>`
      select position, version, topic from topic where transcript_id = ${id} order by position`;
    return {
      ...t,
      destroyed_at: t!.destroyed_at?.toISOString() ?? null,
      deleted_at: t!.deleted_at?.toISOString() ?? null,
      topics: topics.map((x) => ({ ...x })),
    };
  }
  const expected = (r: TranscriptRow) => ({
    version: r.version,
    state_version: r.state_version,
    webvtt_version: r.webvtt_version,
    topics_reset_version: r.topics_reset_version,
    destroyed_at: r.destroyed_at,
    name: r.state.name,
    status: r.state.status,
    title: r.state.title,
    webvtt: r.state.webvtt,
    deleted_at: r.state.deleted_at,
    participants: r.state.participants,
    topics: Object.entries(r.topics).map(([position, slot]) => ({ position: Number(position), version: slot.version, topic: slot.topic })),
  });

  const orders: [string, (es: Wire[]) => Wire[]][] = [
    ["in order", (es) => es],
    ["reversed", (es) => [...es].reverse()],
    ["shuffled", (es) => shuffled(es, 7)],
    ["shuffled again", (es) => shuffled(es, 11)],
    ["redelivered", (es) => [...es, ...shuffled(es, 3)]],
  ];
  for (const destroyed of [false, true]) {
    for (const [name, order] of orders) {
      for (const completedVersion of [1, 2] as const) {
        it(`${destroyed ? "destroyed" : "completed"} transcript (completion v${completedVersion}), events ${name}: the rows match the fold's`, async () => {
          const id = `${destroyed ? "d" : "c"}${completedVersion}-${name.replace(/\s/g, "-")}`;
          const events = order(history(id, destroyed, completedVersion));
          await applyAll(events);
          const folded = foldAll(events)!;
          expect(await rowOf(id)).toEqual(expected(folded));
          // …and every order converges on what the events in order give.
          expect(observable(folded)).toEqual(observable(foldAll(history(id, destroyed, completedVersion))));
        });
      }
    }
  }

  // A batch folds its runs of states and topic upserts into one statement per run (applyInOrder):
  // whatever the batch boundaries, the rows are those of the events applied one by one.
  for (const batch of [3, 5, 100]) {
    for (const destroyed of [false, true]) {
      for (const [name, order] of orders) {
        for (const completedVersion of [1, 2] as const) {
          it(`${destroyed ? "destroyed" : "completed"} transcript (completed v${completedVersion}), events ${name}, in batches of ${batch}: the rows match the fold's`, async () => {
            const id = `b${batch}-${destroyed ? "d" : "c"}${completedVersion}-${name.replace(/\s/g, "-")}`;
            const events = order(history(id, destroyed, completedVersion));
            await applyAll(events, batch);
            expect(await rowOf(id)).toEqual(expected(foldAll(events)!));
          });
        }
      }
    }
  }

  // The stream holds transcript.updated v2 (the WebVTT as text) from before v3 (compressed): both give the same rows.
  for (const batch of [1, 100]) {
    for (const [name, order] of orders) {
      it(`transcript.updated v3, events ${name}, in batches of ${batch}: the rows v2 gave`, async () => {
        const id = (v: number) => `u${v}-b${batch}-${name.replace(/\s/g, "-")}`;
        await applyAll(order(history(id(2), false, 2, 2)), batch);
        await applyAll(order(history(id(3), false, 2, 3)), batch);
        expect(await rowOf(id(3))).toEqual(await rowOf(id(2)));
        expect(await rowOf(id(3))).toMatchObject({ webvtt: "WEBVTT\n\nthree", webvtt_version: 10 });
      });
    }
  }

  it("folds several transcripts' interleaved histories in one batch, each as if applied alone", async () => {
    const ids = ["i-1", "i-2", "i-3"];
    const histories = ids.map((id, n) => shuffled(history(id, n === 2), n + 5));
    const interleaved = histories[0]!.flatMap((e, i) => [e, ...histories.slice(1).map((h) => h[i]!)]).filter(Boolean);
    interleaved.push(...histories.flatMap((h) => h.slice(histories[0]!.length)));
    await applyAll(interleaved, interleaved.length);
    for (const [n, id] of ids.entries()) expect(await rowOf(id)).toEqual(expected(foldAll(histories[n]!)!));
  });

  /**
   * One write of a batch, with how often the row trigger ran in it (it computes the search vector
   * and draws a change_seq): an upsert of an existing row used to fire the insert trigger on the
   * proposed row as well, computing a vector that was thrown away.
   */
  async function writeCounted(events: ScribeEvent[]): Promise<number> {
    return sql.begin(async (tx) => {
      await tx`set local track_functions = 'pl'`;
      // Counts not yet flushed to the statistics are kept across transactions: take the difference.
      const calls = async () =>
        (await tx<{ n: number }[]>`select coalesce(pg_stat_get_xact_function_calls('transcript_before_write'::regproc), 0)::int as n`)[0]!
          .n;
      const before = await calls();
      await applyInOrder(tx, LIVE_TABLES, events, { announce: false });
      return (await calls()) - before;
    });
  }
  /** The row's search vector, and whether it is the one its texts give now. */
  async function vectorOf(id: string): Promise<{ lexemes: string[]; right: boolean }> {
    const [row] = await sql<{ lexemes: string[]; right: boolean }[]>`
      select tsvector_to_array(search_vector) as lexemes,
        search_vector = setweight(to_tsvector('english', coalesce(title, '')), 'A')
          || setweight(to_tsvector('english', coalesce(long_summary, '')), 'B')
          || setweight(to_tsvector('english', coalesce(webvtt_text, '')), 'C')
          || setweight(to_tsvector('english', coalesce(room_name, '')), 'D') as right
      from transcript where id = ${id}`;
    return row!;
  }

  it("runs the row trigger (search vector, change_seq) once per write, and keeps it right through text changes, a room rename and a destruction", async () => {
    const room = sampleRoomState({ name: "Harbour" });
    await sql.begin((tx) =>
      applyEvent(tx, LIVE_TABLES, makeEvent("room.created", room, { source: "scribe/rooms", time: new Date(T0) }).event, {
        announce: false,
      }),
    );
    const id = "vector-1";
    const captions = (text: string) => `WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n<v Speaker0>${text}\n`;
    const at = (v: number, over: Partial<TranscriptState>) => stateOf(id, v, { room_id: room.id, title: "Weekly", ...over });

    expect(await writeCounted([ev("transcript.created", at(1, { webvtt: captions("budget") }), 1)])).toBe(1);
    expect(await vectorOf(id)).toMatchObject({ right: true, lexemes: expect.arrayContaining(["week", "budget", "harbour"]) });

    // The caption text changes: one vector, of the new text.
    expect(await writeCounted([ev("transcript.updated", at(2, { webvtt: captions("forecasts") }), 2)])).toBe(1);
    expect(await vectorOf(id)).toMatchObject({ right: true, lexemes: expect.arrayContaining(["forecast"]) });
    expect((await vectorOf(id)).lexemes).not.toContain("budget");

    // A state that leaves the WebVTT out, and one that changes the title only.
    expect(await writeCounted([ev("transcript.updated", webvttUnchanged(at(3, { name: "renamed" })), 3)])).toBe(1);
    expect(await writeCounted([ev("transcript.updated", webvttUnchanged(at(4, { title: "Quarterly" })), 4)])).toBe(1);
    expect(await vectorOf(id)).toMatchObject({ right: true, lexemes: expect.arrayContaining(["quarter", "forecast", "harbour"]) });

    // An existing row and a new one in one run: one trigger call each.
    const other = ev("transcript.created", stateOf("vector-2", 1, { webvtt: captions("pipelines") }), 5);
    expect(await writeCounted([ev("transcript.updated", at(5, { webvtt: captions("revenue") }), 5), other])).toBe(2);
    expect(await vectorOf(id)).toMatchObject({ right: true, lexemes: expect.arrayContaining(["revenu"]) });
    expect(await vectorOf("vector-2")).toMatchObject({ right: true, lexemes: expect.arrayContaining(["pipelin"]) });

    const renamed = { ...room, version: room.version + 1, name: "Lighthouse" };
    await sql.begin((tx) =>
      applyEvent(tx, LIVE_TABLES, makeEvent("room.updated", renamed, { source: "scribe/rooms", time: new Date(T0) }).event, {
        announce: false,
      }),
    );
    expect(await vectorOf(id)).toMatchObject({ right: true, lexemes: expect.arrayContaining(["lighthous"]) });
    expect((await vectorOf(id)).lexemes).not.toContain("harbour");

    const destroyed = ev("transcript.destroyed", { transcript: at(6, { deleted_at: T0 }), reason: "user" }, 6);
    await sql.begin((tx) => applyEvent(tx, LIVE_TABLES, destroyed, { announce: false }));
    expect(await vectorOf(id)).toMatchObject({ right: true });
    expect((await vectorOf(id)).lexemes).not.toEqual(expect.arrayContaining(["revenu"]));
    expect((await vectorOf(id)).lexemes).not.toEqual(expect.arrayContaining(["quarter"]));
  });

  it("an update of a known row locks it only after the feed lock, so a writer that holds the lock never deadlocks with it", async () => {
    const id = "lock-order";
    await writeCounted([ev("transcript.created", stateOf(id, 1), 1)]);
    const watcher = connectDb(db.url, { schema: "projection", max: 3 });
    try {
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let took!: () => void;
      const holding = new Promise<void>((r) => (took = r));
      const holder = watcher.begin(async (tx) => {
        await tx`select pg_advisory_xact_lock(hashtext('scribe:projection:change_seq'))`;
        took();
        await released;
        await applyEvent(tx, LIVE_TABLES, ev("transcript.updated", stateOf(id, 3, { name: "holder" }), 3), { announce: false });
      });
      await holding;
      // No lock taken first: the statement itself waits for the lock, holding no row meanwhile.
      const other = sql.begin((tx) =>
        applyEvent(tx, LIVE_TABLES, ev("transcript.updated", stateOf(id, 2, { name: "other" }), 2), { announce: false }),
      );
      await eventually(async () => {
        const [w] = await watcher<{ n: number }[]>`
          select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted
            and database = (select oid from pg_database where datname = current_database())`;
        return w!.n >= 1;
      });
      release();
      await Promise.all([holder, other]);
      expect(await sql`select name, state_version from transcript where id = ${id}`).toEqual([{ name: "holder", state_version: 3 }]);
    } finally {
      await watcher.end({ timeout: 5 });
    }
  });

  it("splits a run too large for one statement between transcripts, with the same rows", async () => {
    // 40 transcripts with a ~0.5 MB WebVTT each, no clear to end the run: more than one statement's payload (16 MB).
    const cue = "WEBVTT\n\n" + "00:00:00.000 --> 00:00:01.000\n<v Speaker0>words words words words\n\n".repeat(8000);
    const histories = Array.from({ length: 40 }, (_, n) =>
      history(`big-${n}`, false)
        .filter((e) => e.type !== "transcript.topics.cleared")
        .map((e) =>
          e.type === "transcript.updated" && e.data.webvtt
            ? ({ ...e, data: { ...e.data, webvtt: `${e.data.webvtt}\n${cue}` } } as Wire)
            : e,
        ),
    );
    await applyAll(histories.flat(), histories.flat().length);
    for (const [n, h] of histories.entries()) expect(await rowOf(`big-${n}`)).toEqual(expected(foldAll(h)!));
  });
});
