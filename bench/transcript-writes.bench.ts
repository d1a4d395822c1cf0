// Transcript write side: pipeline port calls per second (row lock, load, compare, save, outbox
// events) next to the same row written with a plain SQL update (baseline), on one database.
import { randomUUID } from "node:crypto";
import { connectDb, createLogger, migrate, serviceMigrations } from "@scribe/kit";
import { createTestDatabase } from "@scribe/kit/testing";
import { WORKFLOW_MIGRATIONS } from "@scribe/workflow";
import { persistNew } from "../services/transcription/src/changes";
import { newAggregate } from "../services/transcription/src/domain/transcript";
import { DbTranscriptPort } from "../services/transcription/src/port";
import { report, time } from "./report";

const CALLS = Number(process.env.BENCH_TRANSCRIPT_WRITES ?? 500);

export default async function bench(): Promise<void> {
  const db = await createTestDatabase("benchtw");
  const sql = connectDb(db.url, { schema: "transcription", max: 4 });
  try {
    await migrate(sql, { schema: "transcription", migrations: serviceMigrations("transcription", { shared: [WORKFLOW_MIGRATIONS] }) });
    const a = newAggregate({ id: randomUUID(), now: new Date(), user_id: "u", name: "bench", source_kind: "file" });
    await sql.begin((tx) => persistNew(tx, { ...a, current_run_id: "run" }));
    await sql`update transcript set current_run_id = 'run' where id = ${a.state.id}`;
    const id = a.state.id;
    const port = new DbTranscriptPort(sql, createLogger("bench", "silent"));

    const raw = await time(async () => {
      for (let i = 0; i < CALLS; i++) await sql`update transcript set title = ${`t${i}`}, version = version + 1 where id = ${id}`;
    });
    const changing = await time(async () => {
      for (let i = 0; i < CALLS; i++) await port.update(id, "run", { title: `p${i}` });
    });
    const unchanged = await time(async () => {
      for (let i = 0; i < CALLS; i++) await port.update(id, "run", { title: "same" });
    });
    const baseline = { name: "raw SQL update", value: CALLS / raw, unit: "writes/s", label: "raw SQL update" };
    report(baseline);
    report({ name: "port.update (changed: event emitted)", value: CALLS / changing, unit: "calls/s" }, baseline);
    report({ name: "port.update (unchanged: nothing emitted)", value: CALLS / unchanged, unit: "calls/s" }, baseline);
  } finally {
    await sql.end({ timeout: 5 });
    await db.drop();
  }
}
