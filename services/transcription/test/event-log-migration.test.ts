// The migration that moved each transcript's event log from a jsonb column into transcript_event
// (issue 20): every entry carried over in order, with the run that holds the log; the duplicate
// rule keeps working on what was carried.
import { connectDb, createLogger, migrate, serviceMigrations, type Sql } from "@scribe/kit";
import { createTestDatabase, type TestDatabase } from "@scribe/kit/testing";
import { WORKFLOW_MIGRATIONS } from "@scribe/workflow";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DbTranscriptPort } from "../src/port";
import { loadTranscript } from "../src/store";

const all = serviceMigrations("transcription", { shared: [WORKFLOW_MIGRATIONS] });
const moving = all.findIndex((m) => /^transcription\/\d{4}_transcript_event_log\.sql$/.test(m.name));
const LOG = [
  { event: "STATUS", data: { value: "processing" } },
  { event: "DURATION", data: { duration: 1500 } },
  { event: "WAVEFORM", data: { waveform: [0.1, 0.5, 1] } },
  { event: "FINAL_TITLE", data: { title: "Weekly" } },
  { event: "DURATION", data: { duration: 900 } },
];

let db: TestDatabase;
let sql: Sql;

beforeAll(async () => {
  db = await createTestDatabase("tevlog");
  sql = connectDb(db.url, { schema: "transcription", max: 2 });
  expect(moving).toBeGreaterThan(0);
  await migrate(sql, { schema: "transcription", migrations: all.slice(0, moving) });
  const row = (id: string, events: unknown[]) => sql`insert into transcript
    (id, version, name, status, created_at, updated_at, source_language, target_language, source_kind, current_run_id, events)
    values (${id}, 3, 'before', 'processing', now(), now(), 'en', 'en', 'file', 'run-1', ${JSON.stringify(events)}::text::jsonb)`;
  await row("with-log", LOG);
  await row("without-log", []);
  await migrate(sql, { schema: "transcription", migrations: all });
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await db?.drop();
});

it("carries each transcript's log into transcript_event in order, with the current run, and drops the column", async () => {
  expect((await loadTranscript(sql, "with-log"))!.events).toEqual(LOG);
  expect((await loadTranscript(sql, "without-log"))!.events).toEqual([]);
  expect(await sql`select distinct run_id from transcript_event`).toEqual([{ run_id: "run-1" }]);
  const [column] = await sql`select 1 from information_schema.columns
    where table_schema = 'transcription' and table_name = 'transcript' and column_name = 'events'`;
  expect(column).toBeUndefined();
});

it("refuses to append an entry the carried log holds, and appends after it", async () => {
  const port = new DbTranscriptPort(sql, createLogger("test", "silent"));
  await sql`delete from outbox`;
  expect(await port.appendEvent("with-log", "run-1", "FINAL_TITLE", { title: "Weekly" })).toBe(true);
  expect(await sql`select 1 from outbox`).toHaveLength(0);
  expect(await port.appendEvent("with-log", "run-1", "FINAL_TITLE", { title: "Weekly, renamed" })).toBe(true);
  expect((await loadTranscript(sql, "with-log"))!.events).toEqual([...LOG, { event: "FINAL_TITLE", data: { title: "Weekly, renamed" } }]);
});
