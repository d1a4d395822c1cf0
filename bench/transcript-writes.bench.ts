// Transcript write side: pipeline port calls per second (decide, save, outbox events) next to the
// same row written with a plain SQL update of the changed part (baseline), on one database.
// Measured on an empty transcript and on 10- and 60-minute ones (issue 20: a write must cost what it
// changes, not what the transcript holds). The port decides on the row as it last left it, as a
// pipeline writing its transcript step after step finds it; "cold" is a port that has not seen the
// row (another replica wrote it last): it reads the row first. The baseline decides nothing and
// records no event, in one round trip: a changed call also writes its event (the transcript's
// state) in the same atomic statement, and a cold call reads first, so a cold call cannot pass
// 0.5x where round trips dominate; where commits wait for the disk, both pay the same flush and
// every ratio rises.
// A run's event log (port.appendEvent) is measured on logs of 0, 500 and 5,000 entries next to a raw
// SQL insert of one row into the log's table (transcript_event): an append must cost the same on
// any log. An append also reads (the duplicate rule's probe) and writes the row and the outbox.
import { randomUUID } from "node:crypto";
import { connectDb, createLogger, migrate, serviceMigrations, type Sql } from "@scribe/kit";
import { createTestDatabase } from "@scribe/kit/testing";
import { WORKFLOW_MIGRATIONS } from "@scribe/workflow";
import { persistNew } from "../services/transcription/src/changes";
import { newAggregate } from "../services/transcription/src/domain/transcript";
import type { LoggedEvent } from "../services/transcription/src/domain/transcript";
import { DbTranscriptPort } from "../services/transcription/src/port";
import { loadTranscript, saveTranscript } from "../services/transcription/src/store";
import { topicsOfMeeting } from "../services/transcription/test/long-transcript";
import { report, time } from "./report";
import { stealWindow } from "./steal";

const CALLS = Number(process.env.BENCH_TRANSCRIPT_WRITES ?? 500);
const ROUNDS = Number(process.env.BENCH_TRANSCRIPT_WRITES_ROUNDS ?? 10);

type Call = (i: number, lastOfRound: number) => Promise<unknown>;

/**
 * Calls of each series before its timed rounds: V8 compiles a function optimised only after some
 * thousand calls, and the port runs far more code than the raw statement, so a short warm-up times
 * the port's compilation as well (the first length measured came out lowest).
 */
const WARM_UP_CALLS = 1000;

/**
 * Each series' calls (numbered from 0) interleaved in rounds, so a load change on the shared machine
 * hits all series alike and the ratios hold even when the absolute figures do not. A warm-up (JIT,
 * prepared statements, connections) runs first and is not counted. Seconds per series.
 */
async function rounds<S extends string>(series: Record<S, Call>): Promise<{ seconds: Record<S, number>; calls: number }> {
  const perRound = Math.max(1, Math.floor(CALLS / ROUNDS));
  const seconds = Object.fromEntries(Object.keys(series).map((k) => [k, 0])) as Record<S, number>;
  const warmUp = Math.ceil(WARM_UP_CALLS / perRound);
  for (let round = -warmUp, n = 0; round < ROUNDS; round++, n += perRound)
    for (const [name, call] of Object.entries(series) as [S, Call][]) {
      const took = await time(async () => {
        for (let i = n; i < n + perRound; i++) await call(i, n + perRound - 1);
      });
      if (round >= 0) seconds[name] += took;
    }
  return { seconds, calls: perRound * ROUNDS };
}

async function measure(sql: Sql, minutes: number): Promise<void> {
  const a = newAggregate({ id: randomUUID(), now: new Date(), user_id: "u", name: "bench", source_kind: "file" });
  const id = a.state.id;
  await sql.begin((tx) => persistNew(tx, a, new Date()));
  await sql`update transcript set current_run_id = 'run' where id = ${id}`;
  const log = createLogger("bench", "silent");
  const port = new DbTranscriptPort(sql, log);
  if (minutes > 0) await port.replaceTopics(id, "run", topicsOfMeeting(minutes));
  const length = minutes === 0 ? "empty transcript" : `${minutes}-minute transcript`;

  const { seconds, calls } = await rounds({
    raw: (i) => sql`update transcript set title = ${`t${i}`}, version = version + 1 where id = ${id}`,
    changing: (i) => port.update(id, "run", { title: `p${i}` }),
    unchanged: (_, last) => port.update(id, "run", { title: `p${last}` }),
    cold: (i) => new DbTranscriptPort(sql, log).update(id, "run", { title: `c${i}` }),
  });
  const { raw, changing, unchanged, cold } = seconds;
  const baseline = { name: `raw SQL update, ${length}`, value: calls / raw, unit: "writes/s", label: "raw SQL update" };
  report(baseline);
  report({ name: `port.update, ${length} (changed: event emitted)`, value: calls / changing, unit: "calls/s" }, baseline);
  report({ name: `port.update, ${length} (unchanged: nothing emitted)`, value: calls / unchanged, unit: "calls/s" }, baseline);
  report({ name: `port.update, ${length} (changed, cold: row read first)`, value: calls / cold, unit: "calls/s" }, baseline);
}

/** A live run's partial text: the entry a long run's log holds most of. */
const spoken = (i: number): LoggedEvent => ({
  event: "TRANSCRIPT",
  data: { text: `and then entry ${i} said what the meeting was about, more or less`, translation: null },
});

/** A transcript whose run "run" has logged `logLength` entries. */
async function transcriptWithLog(sql: Sql, logLength: number): Promise<string> {
  const a = newAggregate({ id: randomUUID(), now: new Date(), user_id: "u", name: "bench", source_kind: "file" });
  await sql.begin((tx) => persistNew(tx, a, new Date()));
  const log = Array.from({ length: logLength }, (_, i) => spoken(i));
  await sql.begin(async (tx) => saveTranscript(tx, { ...(await loadTranscript(tx, a.state.id))!, current_run_id: "run", events: log }));
  return a.state.id;
}

async function measureAppends(sql: Sql, logLength: number): Promise<void> {
  // The baseline inserts into a log of its own transcript, as long as the port's.
  const [id, rawId] = [await transcriptWithLog(sql, logLength), await transcriptWithLog(sql, logLength)];
  const port = new DbTranscriptPort(sql, createLogger("bench", "silent"));
  // Numbered past the seeded entries, so no call is a duplicate (which would emit and write nothing).
  const appended = (i: number) => spoken(logLength + i);
  const { seconds, calls } = await rounds({
    raw: (i) => sql`insert into transcript_event (transcript_id, run_id, event, data)
      values (${rawId}, 'run', 'TRANSCRIPT', ${JSON.stringify(appended(i).data)}::text::jsonb)`,
    append: (i) => port.appendEvent(id, "run", "TRANSCRIPT", appended(i).data),
  });
  const length = `log of ${logLength.toLocaleString("en-US")} events`;
  const baseline = {
    name: `raw SQL insert of one event row, ${length}`,
    value: calls / seconds.raw,
    unit: "rows/s",
    label: "raw SQL insert",
  };
  report(baseline);
  report({ name: `port.appendEvent, ${length} (event emitted)`, value: calls / seconds.append, unit: "calls/s" }, baseline);
}

export default async function bench(): Promise<void> {
  const db = await createTestDatabase("benchtw");
  const sql = connectDb(db.url, { schema: "transcription", max: 4 });
  try {
    await migrate(sql, { schema: "transcription", migrations: serviceMigrations("transcription", { shared: [WORKFLOW_MIGRATIONS] }) });
    const steal = stealWindow();
    for (const minutes of [0, 10, 60]) await measure(sql, minutes);
    console.log("goal (issue 20): port.update ≥ 0.5x raw SQL update at any length");
    for (const logLength of [0, 500, 5000]) await measureAppends(sql, logLength);
    console.log("goal (issue 20): port.appendEvent flat in the log's length, ≥ 0.5x raw SQL insert");
    console.log(
      `CPU time stolen by the hypervisor while timing: ${steal.stolen()} (both series of a ratio alike: their rounds interleave)`,
    );
  } finally {
    await sql.end({ timeout: 5 });
    await db.drop();
  }
}
