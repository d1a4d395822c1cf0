// Replicas of Scribe services as separate processes, as a deployment runs them: each replica is
// `scribe up <services…>` in its own process group (so a SIGKILL takes its ffmpeg and pocketsphinx
// children with it), writing its JSON log lines to a file of its own.
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { eventually } from "@scribe/kit/testing";
import { killServiceProcess } from "./service-process";
import { unusedPort } from "./dev-stack";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface Replica {
  name: string;
  child: ChildProcess;
  /** The gateway's port when the replica runs the gateway. */
  port: number;
  opsPort: number;
  logFile: string;
}

/** Start `scribe up <services>` with `env` (its own gateway port, `port` or a free one, and ops port), logging to `<logDir>/<name>.log`. */
export async function startReplica(opts: {
  name: string;
  services: string[];
  env: Record<string, string>;
  logDir: string;
  port?: number;
}): Promise<Replica> {
  const port = opts.port ?? (await unusedPort());
  const opsPort = await unusedPort();
  const logFile = join(opts.logDir, `${opts.name}.log`);
  const fd = openSync(logFile, "a");
  const child = spawn(process.execPath, ["--import", "tsx", "packages/cli/src/main.ts", "up", ...opts.services], {
    cwd: ROOT,
    env: { ...process.env, ...opts.env, PORT: String(port), OPS_PORT: String(opsPort) },
    stdio: ["ignore", fd, fd],
    detached: true,
  });
  closeSync(fd);
  return { name: opts.name, child, port, opsPort, logFile };
}

/** Until the replica's /readyz answers 200 (every service in it connected and started). */
export async function untilReady(replica: Replica, timeoutMs: number): Promise<void> {
  await eventually(
    async () => {
      if (replica.child.exitCode !== null)
        throw new Error(`replica ${replica.name} exited with ${replica.child.exitCode}; see ${replica.logFile}`);
      const res = await fetch(`http://127.0.0.1:${replica.opsPort}/readyz`).catch(() => null);
      return res?.status === 200;
    },
    { timeoutMs, intervalMs: 250, message: `replica ${replica.name} ready (log: ${replica.logFile})` },
  );
}

/** SIGKILL the replica's process group, as a container dies. */
export const killReplica = (replica: Replica): Promise<void> => killServiceProcess(replica.child);
