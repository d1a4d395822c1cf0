// A worker in its own process, so a test can SIGKILL it mid-step. Prints "ready" once pulling.
import { connectBus, connectDb, createLogger } from "@scribe/kit";
import { WorkflowWorker } from "../../src/index";
import { setSql } from "./child-db";
import { killable } from "./killable";

const env = process.env;
const sql = connectDb(env.DATABASE_URL!, { schema: env.WF_SCHEMA!, max: 4 });
setSql(sql);
const bus = await connectBus({ url: env.NATS_URL!, prefix: env.NATS_PREFIX!, name: "child-worker" });
const worker = new WorkflowWorker({
  sql,
  bus,
  log: createLogger("child", env.TEST_LOG_LEVEL ?? "silent"),
  workflows: [killable],
  ackWaitMs: Number(env.WF_ACK_WAIT_MS),
  workerId: "child",
});
await worker.start();
process.stdout.write("ready\n");
