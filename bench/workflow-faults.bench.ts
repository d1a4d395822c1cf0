// Recovery from killed workers (issue 20): the same workload of speech-to-text-like steps (a queue
// of limited concurrency, each step holding its slot a while) run by worker processes with no
// faults, then while a worker is killed with SIGKILL every BENCH_FAULT_KILL_EVERY_MS (and started
// again at once, as a container runtime does), then the same kills with the old 30 s ack wait.
// A killed worker's steps keep their queue slots until the ack wait ends: that wait is the cost.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { getRun, listRuns, startRun, DEFAULT_ACK_WAIT_MS } from "@scribe/workflow";
import { workflowTestEnv } from "@scribe/workflow/testing";
import { TEST_NATS_URL } from "@scribe/kit/testing";
import { FAULT_STEP_MS, STT_LIKE_QUEUE, faultWorkload } from "./fault-workload";
import { report, time } from "./report";

const RUNS = Number(process.env.BENCH_FAULT_RUNS ?? 8);
const STEPS_PER_RUN = Number(process.env.BENCH_FAULT_STEPS ?? 25);
const WORKERS = Number(process.env.BENCH_FAULT_WORKERS ?? 3);
const KILL_EVERY_MS = Number(process.env.BENCH_FAULT_KILL_EVERY_MS ?? 5000);
const OLD_ACK_WAIT_MS = 30_000;
const GOAL = 1.5;

interface Fleet {
  /** Kill one worker (round robin) and start its replacement; resolves once the replacement pulls. */
  killOne(): Promise<void>;
  kills: number;
  stop(): Promise<void>;
}

export default async function bench(): Promise<void> {
  const env = await workflowTestEnv("benchfaults");
  let schemas = 0;
  try {
    const workload = async (label: string, ackWaitMs: number, kill: boolean) => {
      const schema = await env.openSchema(`benchfaults${++schemas}`);
      await schema.sql`create table bench_commits (run_id uuid not null, item int not null)`;
      const fleet = await startFleet(env.db.url, env.prefix, schema.schema, ackWaitMs);
      let killing = kill;
      let killer: Promise<void> = Promise.resolve();
      const killLoop = async () => {
        while (killing) {
          await new Promise((r) => setTimeout(r, KILL_EVERY_MS));
          if (killing) await fleet.killOne();
        }
      };
      try {
        const seconds = await time(async () => {
          const runIds = await Promise.all(
            Array.from({ length: RUNS }, async () => (await startRun(schema.sql, faultWorkload, { n: STEPS_PER_RUN })).runId),
          );
          if (kill) killer = killLoop();
          for (;;) {
            const runs = await listRuns(schema.sql, { workflow: faultWorkload.name, limit: RUNS });
            const failed = runs.find((r) => r.status === "failed" || r.status === "cancelled");
            if (failed) throw new Error(`${label}: run ${failed.status}: ${(await getRun(schema.sql, failed.id))?.error}`);
            if (runs.length === RUNS && runs.every((r) => r.status === "succeeded")) break;
            await new Promise((r) => setTimeout(r, 100));
          }
          if (runIds.length !== RUNS) throw new Error("runs not started");
        });
        killing = false;
        await killer;
        const [commits] = await schema.sql<{ n: number; distinct: number }[]>`
          select count(*)::int as n, count(distinct (run_id, item))::int as distinct from bench_commits`;
        const [lost] = await schema.sql<{ n: number }[]>`select coalesce(sum(lost_attempts), 0)::int as n from workflow_steps`;
        if (commits!.n !== RUNS * STEPS_PER_RUN || commits!.distinct !== commits!.n)
          throw new Error(`${label}: ${commits!.n} commits (${commits!.distinct} distinct) for ${RUNS * STEPS_PER_RUN} steps`);
        return { seconds, kills: fleet.kills, lost: lost!.n };
      } finally {
        killing = false;
        await killer;
        await fleet.stop();
        await schema.close();
      }
    };

    const steps = RUNS * STEPS_PER_RUN;
    console.log(
      `${RUNS} runs × ${STEPS_PER_RUN} steps of ${FAULT_STEP_MS} ms on a queue of concurrency ${STT_LIKE_QUEUE.concurrency}, ${WORKERS} worker processes; kills every ${KILL_EVERY_MS} ms`,
    );
    const calm = await workload("no faults", DEFAULT_ACK_WAIT_MS, false);
    const base = { name: "no faults", value: calm.seconds, unit: "s" };
    report(base);
    const faulted = await workload("kills", DEFAULT_ACK_WAIT_MS, true);
    report(
      {
        name: `with a worker killed every ${KILL_EVERY_MS / 1000} s (${faulted.kills} kills, ${faulted.lost} steps lost), ack wait ${DEFAULT_ACK_WAIT_MS / 1000} s`,
        value: faulted.seconds,
        unit: "s",
      },
      { ...base, label: `no faults; goal ≤ ${GOAL}x` },
    );
    const old = await workload("kills, old ack wait", OLD_ACK_WAIT_MS, true);
    report(
      {
        name: `the same kills with the old ${OLD_ACK_WAIT_MS / 1000} s ack wait (${old.kills} kills, ${old.lost} steps lost)`,
        value: old.seconds,
        unit: "s",
      },
      { ...base, label: "no faults" },
    );
    report({ name: "throughput without faults", value: steps / calm.seconds, unit: "steps/s" });
  } finally {
    await env.close();
  }
}

/** WORKERS worker processes on `schema`; killOne() SIGKILLs them in turn and starts a replacement. */
async function startFleet(dbUrl: string, prefix: string, schema: string, ackWaitMs: number): Promise<Fleet> {
  let generation = 0;
  const start = async (): Promise<ChildProcess> => {
    const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./fault-worker.ts", import.meta.url))], {
      env: {
        ...process.env,
        DATABASE_URL: dbUrl,
        BENCH_SCHEMA: schema,
        NATS_URL: TEST_NATS_URL,
        NATS_PREFIX: prefix,
        BENCH_ACK_WAIT_MS: String(ackWaitMs),
        BENCH_WORKER_ID: `worker-${++generation}`,
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on("line", (l) => l === "ready" && resolve());
      child.once("exit", (code) => reject(new Error(`bench worker exited before it was ready (${code})`)));
    });
    return child;
  };
  const kill = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await exited;
  };
  const workers = await Promise.all(Array.from({ length: WORKERS }, start));
  let next = 0;
  const fleet: Fleet = {
    kills: 0,
    async killOne() {
      const i = next++ % workers.length;
      await kill(workers[i]!);
      fleet.kills++;
      workers[i] = await start();
    },
    async stop() {
      await Promise.all(workers.map(kill));
    },
  };
  return fleet;
}
