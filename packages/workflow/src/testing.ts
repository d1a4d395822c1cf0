// Test and benchmark set-up for code that runs workflows: a schema with the kit and workflow
// tables, an outbox relay, and workers that are all stopped by close().
import {
  connectBus,
  connectDb,
  createLogger,
  KIT_MIGRATIONS,
  loadMigrations,
  migrate,
  OutboxRelay,
  type Bus,
  type Logger,
  type Sql,
} from "@scribe/kit";
import { createTestDatabase, testPrefix, TEST_NATS_URL, type TestDatabase } from "@scribe/kit/testing";
import { WORKFLOW_STREAM } from "./bus";
import type { AnyWorkflow } from "./definition";
import { WORKFLOW_MIGRATIONS } from "./migrations";
import { WorkflowWorker, type WorkerOptions } from "./worker";

export interface WorkflowSchema {
  schema: string;
  sql: Sql;
  /** Start a worker on this schema (stopped by close()). */
  worker(workflows: AnyWorkflow[], opts?: Partial<WorkerOptions>): Promise<WorkflowWorker>;
  close(): Promise<void>;
}

/** Migrate `schema` (kit + workflow tables) and start its outbox relay. */
export async function openWorkflowSchema(opts: {
  dbUrl: string;
  bus: Bus;
  schema: string;
  log?: Logger;
  poolSize?: number;
}): Promise<WorkflowSchema> {
  const log = opts.log ?? createLogger("test", process.env.TEST_LOG_LEVEL ?? "silent");
  const sql = connectDb(opts.dbUrl, { schema: opts.schema, max: opts.poolSize ?? 8 });
  await migrate(sql, { schema: opts.schema, migrations: loadMigrations([KIT_MIGRATIONS, WORKFLOW_MIGRATIONS]) });
  const relay = new OutboxRelay({ sql, bus: opts.bus, schema: opts.schema, log, pollMs: 200 });
  await relay.start();
  const workers: WorkflowWorker[] = [];
  let closing: Promise<void> | null = null;
  return {
    schema: opts.schema,
    sql,
    async worker(workflows, wopts = {}) {
      const w = new WorkflowWorker({ sql, bus: opts.bus, log, workflows, stopGraceMs: 50, ...wopts });
      workers.push(w);
      await w.start();
      return w;
    },
    close() {
      closing ??= (async () => {
        await Promise.all(workers.map((w) => w.stop()));
        await relay.stop();
        await sql.end({ timeout: 1 });
      })();
      return closing;
    },
  };
}

export interface WorkflowTestEnv {
  db: TestDatabase;
  bus: Bus;
  prefix: string;
  /** Open a schema in this database (closed by close() if still open). */
  openSchema(schema: string): Promise<WorkflowSchema>;
  close(): Promise<void>;
}

/** A fresh database and bus prefix; close() removes them (and the WORKFLOW stream) after closing the schemas. */
export async function workflowTestEnv(label: string): Promise<WorkflowTestEnv> {
  const db = await createTestDatabase(label);
  const prefix = testPrefix(label);
  const bus = await connectBus({ url: TEST_NATS_URL, prefix, name: `test-${label}` });
  const open: WorkflowSchema[] = [];
  return {
    db,
    bus,
    prefix,
    async openSchema(schema) {
      const s = await openWorkflowSchema({ dbUrl: db.url, bus, schema });
      open.push(s);
      return s;
    },
    async close() {
      for (const s of open) await s.close();
      await bus.jsm.streams.delete(bus.stream(WORKFLOW_STREAM)).catch(() => {});
      await bus.close();
      await db.drop();
    },
  };
}
