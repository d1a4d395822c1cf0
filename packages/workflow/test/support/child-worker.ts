// A worker in its own process, so a test can SIGKILL it mid-step (or a step can kill it). Prints
// "ready" once pulling. WF_WORKFLOW picks the workflow; unset WF_* options take the defaults.
import { connectBus, connectDb, createLogger } from "@scribe/kit";
import { WorkflowWorker } from "../../src/index";
import { setSql } from "./child-db";
import { faulty } from "./faulty";
import { killable } from "./killable";

const env = process.env;
const sql = connectDb(env.DATABASE_URL!, { schema: env.WF_SCHEMA!, max: 4 });
setSql(sql);
const bus = await connectBus({ url: env.NATS_URL!, prefix: env.NATS_PREFIX!, name: "child-worker" });
const optional = (name: string) => (env[name] ? Number(env[name]) : undefined);
const lostBackoffMs = optional("WF_LOST_BACKOFF_MS");
const worker = new WorkflowWorker({
  sql,
  bus,
  log: createLogger("child", env.TEST_LOG_LEVEL ?? "silent"),
  workflows: [env.WF_WORKFLOW === "faulty" ? faulty : killable],
  ackWaitMs: optional("WF_ACK_WAIT_MS"),
  lostWorkerAttempts: optional("WF_LOST_ATTEMPTS"),
  lostWorkerBackoff: lostBackoffMs === undefined ? undefined : { initialMs: lostBackoffMs, maxMs: lostBackoffMs },
  workerId: env.WF_ROLE ?? "child",
});
await worker.start();
process.stdout.write("ready\n");
