// Shared set-up for kit tests: a throwaway database with the kit tables, and a prefixed bus.
import { createLogger } from "../src/logger";
import { connectDb, type Sql } from "../src/db";
import { connectBus, type Bus } from "../src/bus/connection";
import { ensureStreams } from "../src/bus/streams";
import { loadMigrations, migrate, KIT_MIGRATIONS } from "../src/migrate";
import { createTestDatabase, testPrefix, TEST_NATS_URL, type TestDatabase } from "../src/testing";
import { STREAMS, DLQ_STREAM, type RoomState } from "@scribe/contracts";
import { sampleRoomState } from "@scribe/contracts/testing";

export const log = createLogger("test", process.env.TEST_LOG_LEVEL ?? "silent");

export interface KitEnv {
  db: TestDatabase;
  sql: Sql;
  bus: Bus;
  schema: string;
  close(): Promise<void>;
}

export async function kitEnv(label: string, schema = "svc"): Promise<KitEnv> {
  const db = await createTestDatabase(label);
  const sql = connectDb(db.url, { schema, max: 5 });
  await migrate(sql, { schema, migrations: loadMigrations([KIT_MIGRATIONS]) });
  const bus = await connectBus({ url: TEST_NATS_URL, prefix: testPrefix(label), name: `test-${label}` });
  await ensureStreams(bus);
  return {
    db,
    sql,
    bus,
    schema,
    async close() {
      for (const s of [...Object.keys(STREAMS), DLQ_STREAM.name]) await bus.jsm.streams.delete(bus.stream(s)).catch(() => {});
      await bus.close();
      await sql.end({ timeout: 1 });
      await db.drop();
    },
  };
}

/** Read every message of a stream (by direct sequence walk), for exact-once assertions. */
export async function streamMessages(
  bus: Bus,
  stream: string,
): Promise<{ subject: string; data: string; seq: number; headers: Record<string, string> }[]> {
  const info = await bus.jsm.streams.info(bus.stream(stream));
  const out = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await bus.jsm.streams.getMessage(bus.stream(stream), { seq }).catch(() => null);
    if (!m) continue;
    const headers: Record<string, string> = {};
    if (m.header) for (const [k, v] of m.header) headers[k] = v.join(",");
    out.push({ subject: m.subject, data: new TextDecoder().decode(m.data), seq: m.seq, headers });
  }
  return out;
}

/** A valid room state for event payloads in kit tests. */
export function sampleRoom(i: number, overrides: Partial<RoomState> = {}): RoomState {
  return sampleRoomState({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    name: `room-${i}`,
    user_id: "owner-1",
    ...overrides,
  });
}
