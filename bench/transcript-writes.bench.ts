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
import { randomUUID } from "node:crypto";
import { connectDb, createLogger, migrate, serviceMigrations, type Sql } from "@scribe/kit";
import { createTestDatabase } from "@scribe/kit/testing";
import { WORKFLOW_MIGRATIONS } from "@scribe/workflow";
import { persistNew } from "../services/transcription/src/changes";
import { newAggregate } from "../services/transcription/src/domain/transcript";
import { DbTranscriptPort } from "../services/transcription/src/port";
import { topicsOfMeeting } from "../services/transcription/test/long-transcript";
import { report, time } from "./report";

const CALLS = Number(process.env.BENCH_TRANSCRIPT_WRITES ?? 500);
const ROUNDS = Number(process.env.BENCH_TRANSCRIPT_WRITES_ROUNDS ?? 10);

async function measure(sql: Sql, minutes: number): Promise<void> {
  const a = newAggregate({ id: randomUUID(), now: new Date(), user_id: "u", name: "bench", source_kind: "file" });
  const id = a.state.id;
  await sql.begin((tx) => persistNew(tx, a, new Date()));
  await sql`update transcript set current_run_id = 'run' where id = ${id}`;
  const log = createLogger("bench", "silent");
  const port = new DbTranscriptPort(sql, log);
  if (minutes > 0) await port.replaceTopics(id, "run", topicsOfMeeting(minutes));
  const length = minutes === 0 ? "empty transcript" : `${minutes}-minute transcript`;

  // Interleaved in rounds, so a load change on the shared machine hits all series alike and the
  // ratios hold even when the absolute figures do not. Round -1 warms up (JIT, prepared
  // statements, connections) and is not counted.
  const perRound = Math.max(1, Math.floor(CALLS / ROUNDS));
  const series = {
    raw: (i: number) => sql`update transcript set title = ${`t${i}`}, version = version + 1 where id = ${id}`,
    changing: (i: number) => port.update(id, "run", { title: `p${i}` }),
    unchanged: (_: number, last: number) => port.update(id, "run", { title: `p${last}` }),
    cold: (i: number) => new DbTranscriptPort(sql, log).update(id, "run", { title: `c${i}` }),
  };
  const seconds = { raw: 0, changing: 0, unchanged: 0, cold: 0 };
  for (let round = -1, n = 0; round < ROUNDS; round++, n += perRound)
    for (const [name, call] of Object.entries(series) as [keyof typeof series, (i: number, last: number) => Promise<unknown>][]) {
      const took = await time(async () => {
        for (let i = n; i < n + perRound; i++) await call(i, n + perRound - 1);
      });
      if (round >= 0) seconds[name] += took;
    }
  const { raw, changing, unchanged, cold } = seconds;
  const calls = perRound * ROUNDS;
  const baseline = { name: `raw SQL update, ${length}`, value: calls / raw, unit: "writes/s", label: "raw SQL update" };
  report(baseline);
  report({ name: `port.update, ${length} (changed: event emitted)`, value: calls / changing, unit: "calls/s" }, baseline);
  report({ name: `port.update, ${length} (unchanged: nothing emitted)`, value: calls / unchanged, unit: "calls/s" }, baseline);
  report({ name: `port.update, ${length} (changed, cold: row read first)`, value: calls / cold, unit: "calls/s" }, baseline);
}

export default async function bench(): Promise<void> {
  const db = await createTestDatabase("benchtw");
  const sql = connectDb(db.url, { schema: "transcription", max: 4 });
  try {
    await migrate(sql, { schema: "transcription", migrations: serviceMigrations("transcription", { shared: [WORKFLOW_MIGRATIONS] }) });
    for (const minutes of [0, 10, 60]) await measure(sql, minutes);
    console.log("goal (issue 20): port.update ≥ 0.5x raw SQL update at any length");
  } finally {
    await sql.end({ timeout: 5 });
    await db.drop();
  }
}
