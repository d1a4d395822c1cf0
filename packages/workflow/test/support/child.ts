// Starting a child worker process (support/child-worker.ts) on a test's schema and bus prefix.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { TEST_NATS_URL } from "@scribe/kit/testing";
import type { FileEnv, SchemaEnv } from "./env";

export interface ChildWorker {
  process: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** SIGKILL (no-op once exited) and wait for the exit. */
  kill(): Promise<void>;
}

/** A worker in its own process, resolved once it pulls; `env` are its WF_* settings. */
export async function startChildWorker(file: FileEnv, t: SchemaEnv, env: Record<string, string>): Promise<ChildWorker> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./child-worker.ts", import.meta.url))], {
    env: { ...process.env, DATABASE_URL: file.db.url, WF_SCHEMA: t.schema, NATS_URL: TEST_NATS_URL, NATS_PREFIX: file.prefix, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  };
  try {
    const lines = createInterface({ input: child.stdout! });
    await new Promise<void>((resolve, reject) => {
      lines.on("line", (l) => l === "ready" && resolve());
      void exited.then((code) => reject(new Error(`child worker exited before it was ready (${code})`)));
    });
  } catch (e) {
    await kill();
    throw e;
  }
  return { process: child, exited, kill };
}
