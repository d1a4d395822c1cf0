// A service run as a child process, as a container runs it, so a test can kill it (SIGKILL) mid-work
// and start it again.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** `services/<name>/src/main.ts` alone in its own process group, so tool processes it runs die with it. */
export function startServiceProcess(name: string, env: Record<string, string | undefined>): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", `services/${name}/src/main.ts`], {
    cwd: ROOT,
    env: { ...process.env, OPS_PORT: "0", ...env },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
}

/** Kills the child's whole process group, as a container dies, and waits for it to exit. */
export async function killServiceProcess(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  process.kill(-child.pid!, "SIGKILL");
  await exited;
}
