// An isolated environment for a Scribe process in a test: its own database, bus prefix and storage
// folder; ports chosen by the system (or a free one).
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, testPrefix, TEST_NATS_URL, type TestDatabase } from "@scribe/kit/testing";
import { deleteStreams } from "./system";

export interface Isolated {
  db: TestDatabase;
  prefix: string;
  root: string;
  env: Record<string, string>;
  drop(): Promise<void>;
}

export async function isolated(label: string): Promise<Isolated> {
  const db = await createTestDatabase(label);
  const prefix = testPrefix(label);
  const root = await mkdtemp(join(tmpdir(), `scribe-${label}-`));
  return {
    db,
    prefix,
    root,
    env: {
      DATABASE_URL: db.url,
      NATS_URL: TEST_NATS_URL,
      NATS_PREFIX: prefix,
      PORT: "0",
      HOST: "127.0.0.1",
      OPS_PORT: "0",
      DEV_DAILY_PORT: "0",
      DEV_WHEREBY_PORT: "0",
      STORAGE_LOCAL_ROOT: root,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
      OUTBOX_POLL_MS: "200",
      DATABASE_POOL_SIZE: "3",
      MEETING_PROCESS_INTERVAL_SECONDS: "0",
    },
    async drop() {
      await deleteStreams(prefix);
      await db.drop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** A port nothing listens on (taken, then released). */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
